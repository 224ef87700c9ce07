// frameproof-store protocol v1 — the SERVER side, serving pi's own stores.
//
//   node store-driver.mjs --store jsonl --dir DIR     pi's JsonlStorage on DIR/session.jsonl
//   node store-driver.mjs --store memory              pi's MemoryStorage
//   ... --store jsonl --dir DIR --faults               and the "fault" op
//
// The reverse of storage-adapter.mjs: there node is the client of a Go store;
// here node serves pi's store (session/jsonl/storage.js JsonlStorage,
// session/memory.js MemoryStorage, pi-agent-core 0.85.1, unmodified) and
// `frameproof conform --suite store --exec CMD` certifies it with frameproof's
// store suite (package props/storeconform):
//
//   frameproof conform --suite store --exec \
//     "node corpus/peers/pi-agent-core/store-driver.mjs --store jsonl --dir {dir}"
//
// The protocol is package impl/store/serve's: a hello line, then one JSON
// response line per request line, in order, echoing its id. Requests carry
// pi's Write objects and query shapes and are passed to pi's Storage as they
// are; a rejected call answers {"id","error":{"message"}} with the message pi
// threw. The JSONL store uses NodeExecutionEnv's file system (pi's JsonlStorage
// never fsyncs); an existing file is reopened with JsonlStorage.open (a torn
// tail repaired as pi repairs it), a missing one created with
// JsonlStorage.create. The process exits 0 when stdin ends, after closing the
// store.
//
// With --faults (JSONL only) the hello offers faults ["write", "short"] and
// the op {"id","op":"fault","fault":NAME} arms one: the store's next
// appendFile or writeFile through its fileSystem (pi's JsonlStorage takes the
// file system as a parameter) fails with EIO, having written nothing
// ("write") or the first half of its content ("short"). pi never fsyncs, so
// no sync fault is offered.

import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
// Imported by path, not from the package root: the root loads the whole
// harness and pi-ai (about 0.8 s a start here), and the suite starts this
// driver once per case, per state machine run and per kill.
import { BACKGROUND_CONTEXT } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/context.js";
import { NodeExecutionEnv } from "@earendil-works/pi-agent-core/harness/env/nodejs";
import { MemoryStorage } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/session/memory.js";
import { JsonlStorage } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/session/jsonl/storage.js";

const PROTOCOL = "frameproof-store";
const PROTOCOL_VERSION = 1;
const SESSION_FILE = "session.jsonl";

function usage(message) {
    process.stderr.write(`store-driver: ${message}\nusage: node store-driver.mjs --store jsonl --dir DIR | --store memory\n`);
    process.exit(2);
}

function parseArgs(argv) {
    const out = {};
    for (let i = 0; i < argv.length; i++) {
        const name = argv[i];
        if (name === "--faults") {
            out.faults = true;
            continue;
        }
        if (name !== "--store" && name !== "--dir") usage(`unknown argument ${name}`);
        if (i + 1 >= argv.length) usage(`${name} needs a value`);
        out[name.slice(2)] = argv[++i];
    }
    if (out.store !== "jsonl" && out.store !== "memory") usage("--store must be jsonl or memory");
    if (out.store === "jsonl" && out.dir === undefined) usage("--store jsonl needs --dir");
    if (out.faults && out.store !== "jsonl") usage("--faults needs --store jsonl (the memory store writes no file)");
    return out;
}

function piVersion() {
    const url = new URL("./node_modules/@earendil-works/pi-agent-core/package.json", import.meta.url);
    return JSON.parse(readFileSync(url, "utf8")).version;
}

const FAULTS = ["write", "short"];

// armable wraps a file system so that the next appendFile or writeFile fails
// as the armed fault says (a Result {ok: false}, as NodeExecutionEnv reports
// an I/O error), once.
function armable(fileSystem) {
    let armed = null;
    const failed = (path) => ({ ok: false, error: Object.assign(new Error(`EIO: i/o error (injected), write '${path}'`), { code: "EIO" }) });
    const wrap = (name) => async (path, content, context) => {
        const fault = armed;
        armed = null;
        if (fault === "write") return failed(path);
        if (fault === "short") {
            const written = await fileSystem[name](path, content.slice(0, Math.floor(content.length / 2)), context);
            return written.ok ? failed(path) : written;
        }
        return fileSystem[name](path, content, context);
    };
    const wrapped = { appendFile: wrap("appendFile"), writeFile: wrap("writeFile") };
    const proxy = new Proxy(fileSystem, {
        get(target, prop) {
            if (prop in wrapped) return wrapped[prop];
            const value = target[prop];
            return typeof value === "function" ? value.bind(target) : value;
        },
    });
    return { fileSystem: proxy, arm: (fault) => (armed = fault) };
}

async function openStore(args) {
    if (args.store === "memory") return { storage: new MemoryStorage(), backend: "MemoryStorage", durable: false };
    let fileSystem = new NodeExecutionEnv({ cwd: args.dir });
    let arm;
    if (args.faults) ({ fileSystem, arm } = armable(fileSystem));
    const path = join(args.dir, SESSION_FILE);
    const options = { fileSystem, path };
    const storage = existsSync(path)
        ? await JsonlStorage.open(options, BACKGROUND_CONTEXT)
        : await JsonlStorage.create(
              options,
              { v: 4, kind: "header", id: "frameproof-conform", storageVersion: 1, createdAt: Date.now(), cwd: args.dir },
              [],
              BACKGROUND_CONTEXT,
          );
    return { storage, backend: "JsonlStorage", durable: true, arm };
}

async function call(storage, request, arm) {
    const ctx = BACKGROUND_CONTEXT;
    switch (request.op) {
        case "fault":
            if (arm === undefined || !FAULTS.includes(request.fault)) throw new ProtocolError(`fault: not offered: ${JSON.stringify(request.fault)}`);
            arm(request.fault);
            return null;
        case "commit":
            return storage.commit(request.writes, ctx);
        case "getEntries":
            return [...(await storage.getEntries(request.ids, ctx)).values()];
        case "getValue":
            return (await storage.getValue(request.address, ctx)) ?? null;
        case "scanValues":
            return storage.scanValues(request.prefix, ctx);
        case "readList":
            return storage.readList(request.address, request.options, ctx);
        case "scanBranch":
            return storage.scanBranch(request.query, ctx);
        case "scanBranchStructure":
            return storage.scanBranchStructure(request.query, ctx);
        case "scanEntries":
            return storage.scanEntries(request.query, ctx);
        case "scanUsage":
            return storage.scanUsage(request.query, ctx);
        case "getStats":
            return storage.getStats(ctx);
        case "close":
            await storage.close(ctx);
            return null;
    }
    return undefined;
}

class ProtocolError extends Error {}

const KNOWN = new Set(["fault", "commit", "getEntries", "getValue", "scanValues", "readList", "scanBranch", "scanBranchStructure", "scanEntries", "scanUsage", "getStats", "close"]);

function write(line) {
    return new Promise((resolve) => {
        if (process.stdout.write(`${line}\n`)) resolve();
        else process.stdout.once("drain", resolve);
    });
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    let opened;
    try {
        opened = await openStore(args);
    } catch (error) {
        const cause = error?.cause === undefined ? "" : ` (cause: ${error.cause?.message ?? error.cause})`;
        process.stderr.write(`store-driver: opening pi's store failed: ${error?.message ?? error}${cause}\n`);
        process.exit(4);
    }
    const { storage, backend, durable, arm } = opened;
    const hello = { hello: PROTOCOL, version: PROTOCOL_VERSION, implementation: "pi-agent-core", implementationVersion: piVersion(), backend, durable };
    if (arm !== undefined) hello.faults = FAULTS;
    await write(JSON.stringify(hello));
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
        if (line.trim() === "") continue;
        let request;
        try {
            request = JSON.parse(line);
        } catch (error) {
            await write(JSON.stringify({ id: null, protocolError: `bad JSON request line: ${error.message}` }));
            continue;
        }
        const id = request?.id ?? null;
        if (typeof request !== "object" || request === null || !KNOWN.has(request.op)) {
            await write(JSON.stringify({ id, protocolError: `unknown op: ${JSON.stringify(request?.op)}` }));
            continue;
        }
        let response;
        try {
            const result = await call(storage, request, arm);
            response = { id, result: result === undefined ? null : result };
        } catch (error) {
            response = error instanceof ProtocolError
                ? { id, protocolError: error.message }
                : { id, error: { message: error instanceof Error ? error.message : String(error) } };
        }
        await write(JSON.stringify(response));
    }
    await storage.close(BACKGROUND_CONTEXT);
}

await main();
