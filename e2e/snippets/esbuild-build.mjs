import * as esbuild from "esbuild";
import { copyFile } from "node:fs/promises";

await esbuild.build({ entryPoints: ["src/app.js"], bundle: true, format: "esm", outdir: "dist" });
// The wasm is no import esbuild follows: copy it next to the bundle (see wasmUrl in app.js).
await copyFile("node_modules/mcplive/mcplive.wasm", "dist/mcplive.wasm");
