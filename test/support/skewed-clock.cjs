// @ts-check
/**
 * A runner whose clock is wrong, for the GitOps tests: loaded with
 * `NODE_OPTIONS=--require …/skewed-clock.cjs`, it moves what every Node.js process of the runner
 * reads as the time (`Date.now()`, `new Date()`) by `CMS_TEST_CLOCK_OFFSET_MS` (a faketime of the
 * JavaScript clock). File times and the database's clock are the storage's, and stay true.
 */
"use strict";
const offset = Number(process.env.CMS_TEST_CLOCK_OFFSET_MS || 0);
const RealDate = Date;
class SkewedDate extends RealDate {
  /** @param {...any} args */
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    // @ts-ignore: the arguments Date takes, passed on as given
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset;
  }
}
globalThis.Date = /** @type {DateConstructor} */ (/** @type {unknown} */ (SkewedDate));
