#!/usr/bin/env node
// scripts/native-sdk-version.cjs: write dist/native/sdk/package.json, read by the generated SDK's
// utilities.getVersion(): the plugin version its resources and functions ask the engine for, the
// package's own. It carries no `pulumi` section, unlike the generator's sdk/nodejs/package.json:
// the Node.js language host reports every package.json under node_modules that has one as a
// plugin to install, and programs on the dynamic `Cluster` alone need no plugin.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
fs.writeFileSync(path.join(root, "dist/native/sdk/package.json"), `${JSON.stringify({ private: true, version }, null, 2)}\n`);
