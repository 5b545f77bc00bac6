import { afterEach, describe, expect, it, vi } from "vitest";
import { holdingLines } from "../../../src/provider/progress/report";
import { deletedLine, goneLine, progressLine, readyLine } from "../../../src/provider/progress/lines";

describe("progress", () => {
  it("formats status and ready nodes; the CLI shows the time beside it", () => {
    const node = (status: string) => ({ status }) as never;
    expect(progressLine("provisioning", { items: [node("ready"), node("joining"), node("ready")], total: 6 })).toBe(
      "provisioning: 2/6 nodes ready",
    );
    expect(progressLine("scaling", undefined)).toBe("scaling");
  });

  it("names the cluster a delete waits for, without the CLI's own word for the step", () => {
    expect(goneLine("cls_1", "deleting")).toBe("waiting for cluster cls_1 to be gone");
    expect(goneLine("cls_1", undefined)).toBe("waiting for cluster cls_1 to be gone");
    expect(goneLine("cls_1", "running")).toBe("waiting for cluster cls_1 to be gone (it is running)");
  });

  it("says, when a replacement's cluster is ready, that the original is deleted next (the CLI keeps the line on the delete's row)", () => {
    expect(readyLine("cls_2", true)).toBe("running: cluster cls_2 ready; the original is deleted next");
    expect(readyLine("cls_2", false)).toBe("running: cluster cls_2 ready");
  });

  it("says, when a replacement's original is gone, that the replacement is created next (the CLI keeps the line on its next rows)", () => {
    expect(deletedLine("cls_1", true)).toBe("deleted: cluster cls_1 is gone; the replacement is created next");
    expect(deletedLine("cls_1", false)).toBe("deleted: cluster cls_1 is gone");
  });

  describe("transient lines", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    const recorder = () => {
      const sent: string[] = [];
      const lines = holdingLines(async (urn, message) => {
        sent.push(`${urn}: ${message}`);
      }, 100);
      return { sent, lines };
    };

    it("sends nothing for an operation that ends within the hold: no line of it is left to replace", async () => {
      vi.useFakeTimers();
      const { sent, lines } = recorder();
      lines.report("u1", "provisioning: cluster cls_1 accepted");
      await lines.end("u1", "running: cluster cls_1 ready");
      await lines.end("u2", "deleted: cluster cls_2 is gone");
      await vi.advanceTimersByTimeAsync(1_000);
      expect(sent).toEqual([]);
      // Unless the last line says what the outcome alone does not.
      await lines.end("u3", "imported: cluster cls_3 is running; no cluster was created", true);
      expect(sent).toEqual(["u3: imported: cluster cls_3 is running; no cluster was created"]);
    });

    it("sends the newest held line of each resource once the hold is over", async () => {
      vi.useFakeTimers();
      const { sent, lines } = recorder();
      lines.report("u1", "provisioning");
      lines.report("u2", "waiting for cluster cls_2 to be gone");
      await vi.advanceTimersByTimeAsync(50);
      lines.report("u1", "provisioning: 1/3 nodes ready");
      expect(sent).toEqual([]);
      await vi.advanceTimersByTimeAsync(50);
      expect(sent).toEqual(["u1: provisioning: 1/3 nodes ready", "u2: waiting for cluster cls_2 to be gone"]);
      lines.report("u1", "provisioning: 2/3 nodes ready");
      await vi.advanceTimersByTimeAsync(100);
      await lines.end("u1", "running: cluster cls_1 ready");
      await lines.end("u2", "deleted: cluster cls_2 is gone");
      expect(sent).toEqual([
        "u1: provisioning: 1/3 nodes ready",
        "u2: waiting for cluster cls_2 to be gone",
        "u1: provisioning: 2/3 nodes ready",
        "u1: running: cluster cls_1 ready",
        "u2: deleted: cluster cls_2 is gone",
      ]);
      // A later operation of the same resource shows its first line at once, and ends with its own
      // outcome, even at once: the CLI still shows the earlier one's (a replacement's delete of the
      // original after its create).
      lines.report("u1", "waiting for cluster cls_0 to be gone");
      expect(sent.at(-1)).toBe("u1: waiting for cluster cls_0 to be gone");
      lines.report("u1", "waiting for cluster cls_0 to be gone (it is running)");
      await lines.end("u1", "deleted: cluster cls_0 is gone");
      expect(sent.slice(5)).toEqual(["u1: waiting for cluster cls_0 to be gone", "u1: deleted: cluster cls_0 is gone"]);
    });

    it("does not send again the line on show: the CLI would print the same row twice in a CI log", async () => {
      vi.useFakeTimers();
      const { sent, lines } = recorder();
      lines.report("u1", "waiting for cluster cls_1 to be gone");
      await vi.advanceTimersByTimeAsync(100);
      lines.report("u1", "waiting for cluster cls_1 to be gone");
      await vi.advanceTimersByTimeAsync(100);
      lines.report("u1", "waiting for cluster cls_1 to be gone (it is running)");
      await vi.advanceTimersByTimeAsync(100);
      lines.report("u1", "waiting for cluster cls_1 to be gone");
      await vi.advanceTimersByTimeAsync(100);
      await lines.end("u1", "waiting for cluster cls_1 to be gone");
      expect(sent).toEqual([
        "u1: waiting for cluster cls_1 to be gone",
        "u1: waiting for cluster cls_1 to be gone (it is running)",
        "u1: waiting for cluster cls_1 to be gone",
      ]);
    });
  });
});
