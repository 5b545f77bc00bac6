#!/usr/bin/env node
// scripts/write-schema.cjs: write the native plugin's schema, as the built plugin serves it, to
// sdk/schema.json (the source of the Go SDK; test/hosts/native/schema.test.ts keeps them equal).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const { packageSchema } = require(path.join(root, "dist/hosts/native/schema.js"));
const { PACKAGE_VERSION } = require(path.join(root, "dist/client/version.js"));
fs.writeFileSync(path.join(root, "sdk/schema.json"), `${JSON.stringify(packageSchema(PACKAGE_VERSION), null, 2)}\n`);
