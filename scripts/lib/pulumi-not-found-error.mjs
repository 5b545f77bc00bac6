// @ts-check
/** No usable Pulumi CLI was found (and none was to be built): says how to get one. */
export class PulumiNotFoundError extends Error {
  /**
   * @param {string} detail what is missing
   * @param {string} version the pinned version scripts/ensure-pulumi would build
   */
  constructor(detail, version) {
    super(
      `The lifecycle tests drive the real Pulumi CLI, and no usable one was found: ${detail}\n` +
        "Put it on PATH (with pulumi-language-nodejs, pulumi-resource-pulumi-nodejs, pulumi-language-yaml and\n" +
        "pulumi-language-go beside it), e.g.\n" +
        '    export PATH="$(scripts/ensure-pulumi | tail -n1):$PATH"\n' +
        `(scripts/ensure-pulumi builds Pulumi v${version} from Go modules when needed: Go >= 1.25, 10-30 min cold on 2 cores).\n` +
        "To skip these tests deliberately, set CMS_SKIP_LIFECYCLE=1.",
    );
    this.name = "PulumiNotFoundError";
  }
}
