// crash-driver: pi's own JsonlStorage on a recording file system, for
// frameproof's crash-image sweep of pi's store (package props/picrash).
//
//   node crash-driver.mjs [--mutate tear-on-open|drop-append]
//
// pi's JsonlStorage (pi-agent-core 0.85.1, session/jsonl/storage.js) takes its
// file system as a parameter ({fileSystem, path}) and calls only
// readTextFile, writeFile, appendFile, renameFile and remove on it; the
// interface has no fsync and pi never asks for one. This driver hands it an
// in-memory file system that performs each call and records it, with its
// bytes, in an operation log. Go replays the log into faults.FS (the
// page-cache model: nothing pi writes is ever synced), enumerates crash
// images at every operation boundary, and sends each image back here to be
// opened by a FRESH JsonlStorage. One request per stdin line, one answer per
// line, in order:
//
//   {"id","op":"run","path","header","now","commits":[[write,...],...]}
//     JsonlStorage.create(header, []) then commit(writes) for each commit, in
//     order, each awaited. Answer:
//     {"id","ok":true,"log":[{"call","op","path","to"?,"data"?}],"commits":[{"ok","firstSeq","seqs"}|{"ok":false,"error"}]}
//     call is -1 for create and i for commit i; data is base64.
//   {"id","op":"open","path","files":{path: base64}}
//     JsonlStorage.open on those files. Answer:
//     {"id","ok":true,"state":{entries,usage,values,lists,nextSeq},"files":{...after},"log":[...]}
//     or {"id","ok":false,"error","cause"?}. entries are {id,parentId,seq},
//     usage {id,seq}, values {namespace,key,value (JSON text),seq}, lists
//     {namespace,key,elements:[{value,seq}]}; nextSeq is commit([])'s
//     firstSeq (it writes nothing). The log holds the calls open made (the
//     torn-tail repair), so Go can crash inside the repair too.
//
// --mutate makes the driver deliberately wrong, to prove the sweep's checker
// fails on broken code: tear-on-open cuts the file's last complete line in
// half before pi reads it (pi then drops that committed line as a torn tail
// and repairs the file without it); drop-append acknowledges the second
// appendFile of a run without writing it (a committed line never reaches the
// file). Neither touches pi's code.

import { createInterface } from "node:readline";
import { BACKGROUND_CONTEXT } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/context.js";
import { JsonlStorage } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/session/jsonl/storage.js";

const MUTATIONS = new Set(["tear-on-open", "drop-append"]);
let mutate = "";
{
    const argv = process.argv.slice(2);
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === "--mutate" && i + 1 < argv.length && MUTATIONS.has(argv[i + 1])) mutate = argv[++i];
        else {
            process.stderr.write(`crash-driver: bad argument ${argv[i]}\nusage: node crash-driver.mjs [--mutate tear-on-open|drop-append]\n`);
            process.exit(2);
        }
    }
}

const ok = (value) => ({ ok: true, value });
const fail = (message) => ({ ok: false, error: new Error(message) });

/** An in-memory FileSystem recording every call that changes a file. */
class RecordingFileSystem {
    files = new Map();
    log = [];
    call = -1;
    appends = 0;
    record(op, path, extra) {
        this.log.push({ call: this.call, op, path, ...extra });
    }
    async readTextFile(path) {
        const bytes = this.files.get(path);
        if (bytes === undefined) return fail(`ENOENT: no such file or directory, open '${path}'`);
        let text = bytes.toString("utf8");
        if (mutate === "tear-on-open") text = tearLastLine(text);
        return ok(text);
    }
    async writeFile(path, content) {
        const data = Buffer.from(content, "utf8");
        this.files.set(path, data);
        this.record("writeFile", path, { data: data.toString("base64") });
        return ok(undefined);
    }
    async appendFile(path, content) {
        const data = Buffer.from(content, "utf8");
        this.appends++;
        if (mutate === "drop-append" && this.appends === 2) return ok(undefined);
        this.files.set(path, Buffer.concat([this.files.get(path) ?? Buffer.alloc(0), data]));
        this.record("appendFile", path, { data: data.toString("base64") });
        return ok(undefined);
    }
    async renameFile(from, to) {
        const bytes = this.files.get(from);
        if (bytes === undefined) return fail(`ENOENT: no such file or directory, rename '${from}' -> '${to}'`);
        this.files.delete(from);
        this.files.set(to, bytes);
        this.record("renameFile", from, { to });
        return ok(undefined);
    }
    async remove(path) {
        // pi removes its .tmp with {force: true}: absent is not an error.
        if (this.files.delete(path)) this.record("remove", path, {});
        return ok(undefined);
    }
}

/** tear-on-open: cut the last complete line after the header in half. */
function tearLastLine(text) {
    const end = text.endsWith("\n") ? text.length - 1 : text.lastIndexOf("\n");
    if (end <= 0) return text;
    const start = text.lastIndexOf("\n", end - 1) + 1;
    if (start === 0) return text; // only the header is complete
    return text.slice(0, start + Math.floor((end - start) / 2));
}

const byAddress = (a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function message(error) {
    return error instanceof Error ? error.message : String(error);
}

async function run(request) {
    const fileSystem = new RecordingFileSystem();
    const options = { fileSystem, path: request.path, now: () => request.now };
    const storage = await JsonlStorage.create(options, request.header, [], BACKGROUND_CONTEXT);
    const commits = [];
    for (let i = 0; i < request.commits.length; i++) {
        fileSystem.call = i;
        try {
            const result = await storage.commit(request.commits[i], BACKGROUND_CONTEXT);
            commits.push({ ok: true, firstSeq: result.firstSeq, seqs: result.seqs });
        } catch (error) {
            commits.push({ ok: false, error: message(error) });
        }
    }
    await storage.close(BACKGROUND_CONTEXT);
    return { ok: true, log: fileSystem.log, commits };
}

async function open(request) {
    const fileSystem = new RecordingFileSystem();
    for (const [path, content] of Object.entries(request.files)) fileSystem.files.set(path, Buffer.from(content, "base64"));
    let storage;
    try {
        storage = await JsonlStorage.open({ fileSystem, path: request.path, now: () => 0 }, BACKGROUND_CONTEXT);
    } catch (error) {
        const out = { ok: false, error: message(error) };
        if (error?.cause !== undefined) out.cause = message(error.cause);
        return out;
    }
    // Values and lists by their physical key, as getValue/readList find them.
    const state = storage.storageState;
    const split = (physical) => {
        const at = physical.indexOf("\u0000");
        return { namespace: physical.slice(0, at), key: physical.slice(at + 1) };
    };
    const values = [...state.scalarValues.entries()]
        .map(([physical, stored]) => ({ ...split(physical), value: JSON.stringify(stored.value), seq: stored.seq }))
        .sort(byAddress);
    const lists = [...state.listValues.entries()]
        .map(([physical, stored]) => ({ ...split(physical), elements: stored.elements.map((e) => ({ value: JSON.stringify(e.value), seq: e.seq })) }))
        .filter((l) => l.elements.length > 0)
        .sort(byAddress);
    const entries = (await storage.scanEntries({}, BACKGROUND_CONTEXT)).map((e) => ({ id: e.id, parentId: e.parentId ?? null, seq: e.seq }));
    const usage = (await storage.scanUsage({}, BACKGROUND_CONTEXT)).map((u) => ({ id: u.id, seq: u.seq }));
    const nextSeq = (await storage.commit([], BACKGROUND_CONTEXT)).firstSeq;
    await storage.close(BACKGROUND_CONTEXT);
    const files = {};
    for (const [path, bytes] of fileSystem.files) files[path] = bytes.toString("base64");
    return { ok: true, state: { entries, usage, values, lists, nextSeq }, files, log: fileSystem.log };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
    if (line.trim() === "") continue;
    let request;
    let response;
    try {
        request = JSON.parse(line);
        if (request.op === "run") response = { id: request.id, ...(await run(request)) };
        else if (request.op === "open") response = { id: request.id, ...(await open(request)) };
        else response = { id: request.id ?? null, ok: false, helper: true, error: `crash-driver: unknown op ${JSON.stringify(request.op)}` };
    } catch (error) {
        response = { id: request?.id ?? null, ok: false, helper: true, error: `crash-driver: ${error?.stack ?? error}` };
    }
    const text = JSON.stringify(response);
    if (!process.stdout.write(`${text}\n`)) await new Promise((resolve) => process.stdout.once("drain", resolve));
}
