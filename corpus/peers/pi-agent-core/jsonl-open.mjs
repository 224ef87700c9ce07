// Opens JSONL session files in pi's own JsonlStorage, many per process, for
// frameproof's cross-implementation property tests (props/jsonlpi).
//
//   node jsonl-open.mjs
//
// Reads one request per stdin line, {"id", "path", "content"} with content the
// file's bytes in base64, and answers one line each, in order:
//
//   {"id", "ok": true, "state": {entries, usage, values, lists, stats, nextSeq}, "rewritten"?}
//   {"id", "ok": false, "error": message, "cause"?: message of error.cause}
//
// The file lives in an in-memory file system handed to JsonlStorage.open as its
// `fileSystem` (pi-agent-core 0.85.1 session/jsonl/storage.js), which decodes
// it as NodeExecutionEnv.readTextFile does (UTF-8, invalid bytes as U+FFFD);
// "rewritten" is the file after a torn-tail repair (base64). entries and usage
// are pi's scanEntries({}) and scanUsage({}); values and lists are read from
// the store's InMemoryStorageState, since pi's Storage cannot enumerate
// namespaces (by physical key: values sorted by namespace then key, lists
// likewise, elements in seq order); nextSeq is the firstSeq of commit([]),
// which writes nothing.
//
// Optional request members, for v3 session imports (session/jsonl/legacy-v3.js):
// "now" (ms) is the storage's clock; "files" {path: base64} puts more files in the file system (a v3 header's
// parentSession is read through readTextLines); "commit" [write, ...] (pi's
// write builders' objects: {kind:"entry",entry}, {kind:"value",op:"set",...})
// is committed after the state is read (an entry's parentId "$tip" becomes
// the pi.branch.tip "main" value), and the answer gains
// "commit" {firstSeq, seqs} or "commitError", "after" (the file afterwards,
// base64) and "stateAfter" (the state then, as "state").

import { createInterface } from "node:readline";
import { BACKGROUND_CONTEXT } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/context.js";
import { JsonlStorage } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/session/jsonl/storage.js";

const ok = (value) => ({ ok: true, value });
const fail = (message) => ({ ok: false, error: new Error(message) });

/** A FileSystem with one file, enough for JsonlStorage.open and its repair. */
class MemoryFileSystem {
    files = new Map();
    async readTextFile(path) {
        const bytes = this.files.get(path);
        return bytes === undefined ? fail(`ENOENT: ${path}`) : ok(bytes.toString("utf8"));
    }
    async writeFile(path, content) {
        this.files.set(path, Buffer.from(content, "utf8"));
        return ok(undefined);
    }
    async appendFile(path, content) {
        const old = this.files.get(path) ?? Buffer.alloc(0);
        this.files.set(path, Buffer.concat([old, Buffer.from(content, "utf8")]));
        return ok(undefined);
    }
    async renameFile(from, to) {
        const bytes = this.files.get(from);
        if (bytes === undefined) return fail(`ENOENT: ${from}`);
        this.files.delete(from);
        this.files.set(to, bytes);
        return ok(undefined);
    }
    async readTextLines(path, options) {
        const bytes = this.files.get(path);
        if (bytes === undefined) return fail(`ENOENT: ${path}`);
        const lines = bytes.toString("utf8").split(/\r?\n/);
        if (lines.at(-1) === "") lines.pop();
        return ok(options?.maxLines === undefined ? lines : lines.slice(0, options.maxLines));
    }
    async remove(path) {
        this.files.delete(path);
        return ok(undefined);
    }
}

const byAddress = (a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

async function open(request) {
    const fileSystem = new MemoryFileSystem();
    const original = Buffer.from(request.content, "base64");
    fileSystem.files.set(request.path, original);
    for (const [path, content] of Object.entries(request.files ?? {})) fileSystem.files.set(path, Buffer.from(content, "base64"));
    let storage;
    try {
        const now = request.now === undefined ? undefined : () => request.now;
        storage = await JsonlStorage.open({ fileSystem, path: request.path, now }, BACKGROUND_CONTEXT);
    } catch (error) {
        const out = { ok: false, error: error instanceof Error ? error.message : String(error) };
        if (error?.cause !== undefined) out.cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
        return out;
    }
    // Each value and list under the address getValue/readList find it by:
    // its physical key `${namespace}\u0000${key}` (the Map key), not the
    // address stored with it, which differs for a record without a key
    // (docs/PI-FINDINGS.md, "A record without a key").
    const out = { ok: true, state: await readState(storage) };
    const after = fileSystem.files.get(request.path);
    if (after !== undefined && !after.equals(original)) out.rewritten = after.toString("base64");
    if (request.commit !== undefined) {
        try {
            // An entry whose parentId is "$tip" extends the main branch tip
            // (an imported v3 session's entry ids are reminted at open).
            const tip = (await storage.getValue({ namespace: "pi.branch.tip", key: "main", kind: "value" }, BACKGROUND_CONTEXT))?.value ?? null;
            const writes = request.commit.map((write) =>
                write.kind === "entry" && write.entry?.parentId === "$tip" ? { ...write, entry: { ...write.entry, parentId: tip } } : write,
            );
            const result = await storage.commit(writes, BACKGROUND_CONTEXT);
            out.commit = { firstSeq: result.firstSeq, seqs: result.seqs };
        } catch (error) {
            out.commitError = error instanceof Error ? error.message : String(error);
        }
        out.after = (fileSystem.files.get(request.path) ?? Buffer.alloc(0)).toString("base64");
        out.stateAfter = await readState(storage);
    }
    await storage.close(BACKGROUND_CONTEXT);
    return out;
}

async function readState(storage) {
    const state = storage.storageState;
    const split = (physical) => {
        const at = physical.indexOf("\u0000");
        return { namespace: physical.slice(0, at), key: physical.slice(at + 1) };
    };
    const values = [...state.scalarValues.entries()]
        .map(([physical, stored]) => ({ ...split(physical), value: stored.value, seq: stored.seq }))
        .sort(byAddress);
    const lists = [...state.listValues.entries()]
        .map(([physical, stored]) => ({ ...split(physical), elements: stored.elements }))
        .sort(byAddress);
    return {
        entries: await storage.scanEntries({}, BACKGROUND_CONTEXT),
        usage: await storage.scanUsage({}, BACKGROUND_CONTEXT),
        values,
        lists,
        stats: await storage.getStats(BACKGROUND_CONTEXT),
        nextSeq: (await storage.commit([], BACKGROUND_CONTEXT)).firstSeq,
    };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
    if (line.trim() === "") continue;
    let request;
    let response;
    try {
        request = JSON.parse(line);
        response = { id: request.id, ...(await open(request)) };
    } catch (error) {
        response = { id: request?.id ?? null, ok: false, error: `jsonl-open: ${error?.stack ?? error}`, helper: true };
    }
    const text = JSON.stringify(response);
    if (!process.stdout.write(`${text}\n`)) await new Promise((resolve) => process.stdout.once("drain", resolve));
}
