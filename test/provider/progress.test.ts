import { afterEach, describe, expect, it, vi } from "vitest";
import { holdingLines } from "../../src/provider/progress";
import { progressLine } from "../../src/provider/progress-line";

describe("progress", () => {
  it("formats status, ready nodes and time waited", () => {
    const node = (status: string) => ({ status }) as never;
    expect(progressLine("provisioning", { items: [node("ready"), node("joining"), node("ready")], total: 6 }, 80_000)).toBe(
      "provisioning: 2/6 nodes ready (1m20s)",
    );
    expect(progressLine("scaling", undefined, 5_000)).toBe("scaling (5s)");
    expect(progressLine("provisioning", undefined, 24)).toBe("provisioning (0s)");
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
      lines.report("u1", "provisioning (0s)");
      lines.report("u2", "deleting");
      await vi.advanceTimersByTimeAsync(50);
      lines.report("u1", "provisioning: 1/3 nodes ready (0s)");
      expect(sent).toEqual([]);
      await vi.advanceTimersByTimeAsync(50);
      expect(sent).toEqual(["u1: provisioning: 1/3 nodes ready (0s)", "u2: deleting"]);
      lines.report("u1", "provisioning: 2/3 nodes ready (3s)");
      await vi.advanceTimersByTimeAsync(100);
      await lines.end("u1", "running: cluster cls_1 ready");
      await lines.end("u2", "deleted: cluster cls_2 is gone");
      expect(sent).toEqual([
        "u1: provisioning: 1/3 nodes ready (0s)",
        "u2: deleting",
        "u1: provisioning: 2/3 nodes ready (3s)",
        "u1: running: cluster cls_1 ready",
        "u2: deleted: cluster cls_2 is gone",
      ]);
      // A later operation of the same resource starts afresh.
      lines.report("u1", "scaling");
      await lines.end("u1", "running: 2 workers");
      expect(sent).toHaveLength(5);
    });
  });
});
