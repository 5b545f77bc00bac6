// node scripts/lib/plugin-version.cjs PLUGIN: prints the version a Pulumi resource plugin reports
// to the engine (its GetPluginInfo), as the engine asks it. The plugin is started as the engine
// starts it, prints the port it serves on, is asked, and is stopped. Prints nothing and exits 1
// when it cannot be asked (within 30 s).
"use strict";
const { spawn } = require("node:child_process");
const grpc = require("@grpc/grpc-js");
const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb");

const plugin = process.argv[2];
const child = spawn(plugin, [], { stdio: ["ignore", "pipe", "ignore"] });
const fail = () => {
  child.kill("SIGKILL");
  process.exit(1);
};
const timer = setTimeout(fail, 30_000);
child.on("error", fail);
child.stdout.once("data", (data) => {
  const port = String(data).trim();
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  client.getPluginInfo(new Empty(), (err, info) => {
    clearTimeout(timer);
    child.kill();
    if (err) fail();
    else process.stdout.write(`${info.getVersion()}\n`);
  });
});
