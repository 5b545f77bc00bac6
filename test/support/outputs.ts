/** Test helpers for Pulumi outputs (under mocks). */
import type * as pulumi from "@pulumi/pulumi";

/** The value an Output resolves to. */
export const outputValue = <T>(o: pulumi.Output<T>): Promise<T> => new Promise((resolve) => o.apply((v) => resolve(v)));
