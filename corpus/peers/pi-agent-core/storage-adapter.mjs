// frameproof-store protocol v1 — adapter presenting a served store as pi's Storage.
//
// `frameproof serve store --backend NAME --dir DIR` (package impl/store/serve)
// answers pi's Storage calls over stdio: a hello line, then one JSON response
// line per request line, echoing its id. ServedStorage below implements pi's
// Storage interface (session/types.ts) on top of such a process, so pi's own
// test kit runs against it unmodified.
//
// As a program it runs pi's storage conformance suite,
// createStorageConformance(factory) from
// @earendil-works/pi-agent-core/harness/session/testing, against a command:
//
//   node storage-adapter.mjs conform-storage -- CMD [ARGS...]
//
// Every case gets a fresh process and a fresh temporary directory; "{dir}" in
// ARGS is replaced by it. One JSON line per case is printed,
// {"group","name","ok","error"?}, then {"summary":{"passed","failed"}}; the
// exit code is 0 when every case passed, 1 otherwise, 2 on a usage error.

import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorageConformance } from "@earendil-works/pi-agent-core/harness/session/testing";

export const PROTOCOL = "frameproof-store";
export const PROTOCOL_VERSION = 1;

/** pi's Storage over one `frameproof serve store` process. */
export class ServedStorage {
    child;
    pending = new Map();
    nextId = 1;
    buffer = "";
    hello;
    exited;
    closePromise;
    failure;

    static async start(command, args, options = {}) {
        const storage = new ServedStorage(command, args, options);
        storage.hello = await storage.helloPromise;
        const protocol = options.protocol ?? PROTOCOL;
        const protocolVersion = options.protocolVersion ?? PROTOCOL_VERSION;
        if (storage.hello.hello !== protocol || storage.hello.version !== protocolVersion) {
            await storage.dispose();
            throw new Error(`storage adapter: unexpected hello ${JSON.stringify(storage.hello)}`);
        }
        return storage;
    }

    constructor(command, args, options) {
        this.child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env });
        let stderr = "";
        this.child.stderr.setEncoding("utf8");
        this.child.stderr.on("data", (chunk) => {
            stderr = (stderr + chunk).slice(-4000);
        });
        let helloResolve;
        let helloReject;
        this.helloPromise = new Promise((resolve, reject) => {
            helloResolve = resolve;
            helloReject = reject;
        });
        this.child.stdout.setEncoding("utf8");
        this.child.stdout.on("data", (chunk) => {
            this.buffer += chunk;
            for (;;) {
                const newline = this.buffer.indexOf("\n");
                if (newline < 0) break;
                const line = this.buffer.slice(0, newline);
                this.buffer = this.buffer.slice(newline + 1);
                if (line.trim() === "") continue;
                let message;
                try {
                    message = JSON.parse(line);
                } catch (error) {
                    this.fail(new Error(`storage adapter: bad response line: ${line.slice(0, 200)}`));
                    continue;
                }
                if (helloResolve !== undefined) {
                    const resolve = helloResolve;
                    helloResolve = undefined;
                    resolve(message);
                    continue;
                }
                const waiter = this.pending.get(message.id);
                if (waiter === undefined) {
                    this.fail(new Error(`storage adapter: response for unknown id ${message.id}`));
                    continue;
                }
                this.pending.delete(message.id);
                if (message.protocolError !== undefined) waiter.reject(new Error(`protocol error: ${message.protocolError}`));
                else if (message.error !== undefined) waiter.reject(new Error(message.error.message));
                else waiter.resolve(message.result);
            }
        });
        this.exited = new Promise((resolve) => {
            this.child.on("close", (code, signal) => {
                const error = new Error(`storage adapter: server exited (code ${code}, signal ${signal}): ${stderr.trim()}`);
                if (helloReject !== undefined && helloResolve !== undefined) helloReject(error);
                this.fail(error);
                resolve();
            });
        });
        this.child.on("error", (error) => {
            if (helloReject !== undefined && helloResolve !== undefined) helloReject(error);
            this.fail(error);
        });
        this.child.stdin.on("error", () => {});
    }

    fail(error) {
        this.failure ??= error;
        for (const waiter of this.pending.values()) waiter.reject(error);
        this.pending.clear();
    }

    request(op, fields = {}) {
        if (this.failure !== undefined) return Promise.reject(this.failure);
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject });
            this.child.stdin.write(`${JSON.stringify({ id, op, ...fields })}\n`);
        });
    }

    commit(writes, _context) {
        return this.request("commit", { writes });
    }

    async getEntries(ids, _context) {
        const entries = await this.request("getEntries", { ids });
        return new Map(entries.map((entry) => [entry.id, entry]));
    }

    async getValue(address, _context) {
        const stored = await this.request("getValue", { address });
        return stored === null ? undefined : stored;
    }

    scanValues(prefix, _context) {
        return this.request("scanValues", { prefix });
    }

    readList(address, options, _context) {
        return this.request("readList", options === undefined ? { address } : { address, options });
    }

    scanBranch(query, _context) {
        return this.request("scanBranch", { query });
    }

    scanBranchStructure(query, _context) {
        return this.request("scanBranchStructure", { query });
    }

    scanEntries(query, _context) {
        return this.request("scanEntries", { query });
    }

    scanUsage(query, _context) {
        return this.request("scanUsage", { query });
    }

    getStats(_context) {
        return this.request("getStats");
    }

    close(_context) {
        this.closePromise ??= this.request("close").then(() => undefined);
        return this.closePromise;
    }

    /** End the process: close its stdin and wait for it to exit. */
    async dispose() {
        this.child.stdin.end();
        const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
        await this.exited;
        clearTimeout(timer);
    }
}

/** A factory for pi's conformance suites: a fresh server and directory per fixture. */
export function servedStorageFactory(command, args) {
    return async () => {
        const dir = await mkdtemp(join(tmpdir(), "frameproof-store-"));
        let storage;
        try {
            storage = await ServedStorage.start(
                command,
                args.map((arg) => arg.replaceAll("{dir}", dir)),
            );
        } catch (error) {
            await rm(dir, { recursive: true, force: true });
            throw error;
        }
        return {
            storage,
            async [Symbol.asyncDispose]() {
                await storage.dispose();
                await rm(dir, { recursive: true, force: true });
            },
        };
    };
}

function errorText(error) {
    if (error instanceof Error) return error.stack ?? error.message;
    return String(error);
}

async function conformStorage(command, args) {
    const cases = createStorageConformance(servedStorageFactory(command, args));
    let passed = 0;
    let failed = 0;
    for (const testCase of cases) {
        try {
            await testCase.run();
            passed++;
            console.log(JSON.stringify({ group: testCase.group, name: testCase.name, ok: true }));
        } catch (error) {
            failed++;
            console.log(JSON.stringify({ group: testCase.group, name: testCase.name, ok: false, error: errorText(error) }));
        }
    }
    console.log(JSON.stringify({ summary: { passed, failed } }));
    return failed === 0 ? 0 : 1;
}

async function main(argv) {
    const dash = argv.indexOf("--");
    if (argv[0] !== "conform-storage" || dash < 0 || dash + 1 >= argv.length) {
        console.error("usage: node storage-adapter.mjs conform-storage -- CMD [ARGS...]   ({dir} in ARGS: a fresh directory per case)");
        return 2;
    }
    return conformStorage(argv[dash + 1], argv.slice(dash + 2));
}

if (import.meta.url === `file://${process.argv[1]}`) {
    process.exitCode = await main(process.argv.slice(2));
}
