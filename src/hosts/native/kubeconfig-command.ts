/**
 * The command that runs `pulumi-resource-cms kubeconfig ...` again, for the kubeconfigs the plugin
 * executable hands out: `kubeconfig save`'s, and the exec kubeconfig of `cms:index:getKubeconfig`
 * (`credential: "exec"`), which the Kubernetes provider of a YAML or Go stack runs at each use.
 *
 * Named by absolute path, the running executable: a YAML or Go user has no `node` or `pulumi-cms`
 * in the project to find it by, and the plugin need not be on PATH (the engine also finds it in
 * `~/.pulumi/plugins` or in the `path:` of Pulumi.yaml), but where the plugin is installed, it is
 * there for as long as the stack uses it. The release's single executable is `process.execPath`;
 * the npm bin is a script, run by the Node.js running it now (also by absolute path, so that
 * the kubeconfig does not depend on which `node` the Kubernetes provider's PATH would find).
 */
import { realpathSync } from "node:fs";
import * as sea from "node:sea";
import type { ExecCommand } from "../../provider/exec-credential";

/** `pulumi-resource-cms kubeconfig`, as this process was started: the executable, or this Node.js and the bin's file. */
export function pluginKubeconfigCommand(): ExecCommand {
  const args = sea.isSea() ? [] : [realpathSync(process.argv[1])];
  return { command: process.execPath, args: [...args, "kubeconfig"] };
}
