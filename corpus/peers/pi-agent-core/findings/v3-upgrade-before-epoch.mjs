// pi finding: a v3 session from before 1970 is upgraded into a v4 file pi
// cannot open. Run from the repository root after
// `npm ci --ignore-scripts --prefix corpus/peers/pi-agent-core`:
//
//   node corpus/peers/pi-agent-core/findings/v3-upgrade-before-epoch.mjs
//
// It writes a v3 session whose header timestamp is 1969-12-31T23:59:59Z,
// opens it with pi's JsonlStorage (session/jsonl/storage.js openLegacyV3:
// codec.js isLegacyV3SessionHeader only asks Date.parse(timestamp) to be
// finite), commits one value (upgradeLegacyV3ToV4 replaces the file with a
// v4 one whose header has createdAt -1000, from legacy-v3.js
// metadataFromLegacyV3Header), and opens the file again: isJsonlStorageHeader
// wants createdAt >= 0, so pi refuses its own upgrade ("invalid header").
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { BACKGROUND_CONTEXT as C } from "@earendil-works/pi-agent-core";
import { NodeExecutionEnv } from "@earendil-works/pi-agent-core/harness/env/nodejs";

const entry = fileURLToPath(import.meta.resolve("@earendil-works/pi-agent-core"));
const dist = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
const { JsonlStorage } = await import(join(dist, "dist/harness/session/jsonl/storage.js"));

const dir = mkdtempSync(join(tmpdir(), "pi-v3-epoch-"));
const path = join(dir, "s.jsonl");
writeFileSync(path, '{"type":"session","version":3,"id":"s","timestamp":"1969-12-31T23:59:59.000Z","cwd":"/w"}\n');
const fileSystem = new NodeExecutionEnv({ cwd: dir });
const storage = await JsonlStorage.open({ fileSystem, path }, C);
console.log("opened the v3 file; committing one value");
await storage.commit([{ kind: "value", op: "set", namespace: "app", key: "k", value: 1 }], C);
await storage.close(C);
console.log("header now:", readFileSync(path, "utf8").split("\n")[0]);
try {
	await JsonlStorage.open({ fileSystem, path }, C);
	console.log("reopened (not the finding)");
} catch (error) {
	console.log("reopen refused:", error.message);
}
