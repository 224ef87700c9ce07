// frameproof-session-repo protocol v1 — adapter presenting a served session
// repository as pi's SessionRepo.
//
// `frameproof serve repo --backend NAME --dir DIR` (package impl/store/serve)
// answers pi's SessionRepo calls (create, open, list, delete, fork) and, for
// every session it opened, pi's Storage calls, over stdio: a hello line, then
// one JSON response line per request line, echoing its id. A request for a
// session's storage names the session handle the repository returned.
// ServedSessionRepo below is pi's SessionRepo on such a process. Each session
// it returns is pi's own StorageBackedSession over the session's served
// storage, as pi's JsonlSessionRepo wraps its JsonlStorage, so what pi's suite
// checks beyond the repository (branches, mutation scopes, close draining) is
// pi's session code over frameproof's storage.
//
// As a program it runs pi's session-repo conformance suite,
// createSessionRepoConformance(factory, onClose) from
// @earendil-works/pi-agent-core/harness/session/testing, unmodified:
//
//   node session-repo-adapter.mjs conform-repo -- CMD [ARGS...]
//   node session-repo-adapter.mjs conform-repo --pi jsonl|memory
//
// The first form serves the repository by CMD ("{dir}" in ARGS is a fresh
// directory per case, and every case gets a fresh process); the second runs
// the suite against pi's own JsonlSessionRepo or MemorySessionRepo, the
// baseline. One JSON line per case is printed, {"group","name","ok","error"?},
// then {"summary":{"passed","failed"}}; the exit code is 0 when every case
// passed, 1 otherwise, 2 on a usage error.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlSessionRepo, MemorySessionRepo, StorageBackedSession } from "@earendil-works/pi-agent-core";
import { NodeExecutionEnv } from "@earendil-works/pi-agent-core/harness/env/nodejs";
import { createSessionRepoConformance } from "@earendil-works/pi-agent-core/harness/session/testing";
import { ServedStorage } from "./storage-adapter.mjs";

export const REPO_PROTOCOL = "frameproof-session-repo";
export const REPO_PROTOCOL_VERSION = 1;

/** The cwd pi's own JSONL conformance test gives every session. */
const CONFORMANCE_CWD = "/workspace";

const STORAGE_METHODS = [
    "commit",
    "getEntries",
    "getValue",
    "scanValues",
    "readList",
    "scanBranch",
    "scanBranchStructure",
    "scanEntries",
    "scanUsage",
    "getStats",
    "close",
];

/** pi's Storage for one session of a served repository. */
class SessionStorage {
    constructor(process, handle) {
        this.process = process;
        this.handle = handle;
    }

    request(op, fields = {}) {
        return this.process.request(op, { session: this.handle, ...fields });
    }
}
for (const name of STORAGE_METHODS) SessionStorage.prototype[name] = ServedStorage.prototype[name];

/** pi's SessionRepo over one `frameproof serve repo` process. */
export class ServedSessionRepo {
    static async start(command, args, options = {}) {
        const process = await ServedStorage.start(command, args, {
            ...options,
            protocol: REPO_PROTOCOL,
            protocolVersion: REPO_PROTOCOL_VERSION,
        });
        return new ServedSessionRepo(process);
    }

    constructor(process) {
        this.process = process;
    }

    // Every method sends its request before its first await, so requests
    // reach the server in call order, as pi's repositories start their work.
    async create(options, _context) {
        return this.session(await this.process.request("repo.create", { options: options ?? {} }));
    }

    async open(metadata, _context) {
        return this.session(await this.process.request("repo.open", { metadata }));
    }

    list(options, _context) {
        return this.process.request("repo.list", options === undefined ? {} : { options });
    }

    async delete(metadata, _context) {
        await this.process.request("repo.delete", { metadata });
    }

    async fork(source, options, _context) {
        return this.session(await this.process.request("repo.fork", { source, options }));
    }

    async close(_context) {
        await this.process.request("repo.close");
    }

    session({ session, metadata }) {
        return new StorageBackedSession(metadata, new SessionStorage(this.process, session));
    }

    dispose() {
        return this.process.dispose();
    }
}

function errorText(error) {
    if (error instanceof Error) return error.stack ?? error.message;
    return String(error);
}

/** A fresh repository and directory per case, disposed by the returned onClose. */
function repoFixtures(open) {
    let current;
    return {
        async factory() {
            const dir = await mkdtemp(join(tmpdir(), "frameproof-repo-"));
            try {
                current = { dir, repo: await open(dir) };
            } catch (error) {
                await rm(dir, { recursive: true, force: true });
                throw error;
            }
            return current.repo;
        },
        async onClose() {
            const fixture = current;
            current = undefined;
            if (fixture === undefined) return;
            await fixture.repo.dispose?.();
            await rm(fixture.dir, { recursive: true, force: true });
        },
    };
}

function piRepo(kind) {
    switch (kind) {
        case "jsonl":
            // pi's JsonlSessionRepo requires a cwd to create a session (the
            // suite gives none; NodeExecutionEnv.absolutePath(undefined)
            // throws a TypeError), so the baseline wraps it as pi's own
            // test/harness/jsonl-session-repo-conformance.test.ts does.
            return async (dir) => {
                const repo = new JsonlSessionRepo({ fileSystem: new NodeExecutionEnv({ cwd: dir }), sessionsRoot: "sessions" });
                return {
                    create: (options, context) => repo.create({ ...options, cwd: CONFORMANCE_CWD }, context),
                    open: (metadata, context) => repo.open(metadata, context),
                    list: (_options, context) => repo.list({ cwd: CONFORMANCE_CWD }, context),
                    delete: (metadata, context) => repo.delete(metadata, context),
                    fork: (source, options, context) => repo.fork(source, options, context),
                };
            };
        case "memory":
            return async () => new MemorySessionRepo();
    }
    return undefined;
}

async function conformRepo(open) {
    const { factory, onClose } = repoFixtures(open);
    const cases = createSessionRepoConformance(factory, onClose);
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

const USAGE =
    "usage: node session-repo-adapter.mjs conform-repo -- CMD [ARGS...]   ({dir} in ARGS: a fresh directory per case)\n" +
    "       node session-repo-adapter.mjs conform-repo --pi jsonl|memory   (pi's own repositories)";

async function main(argv) {
    if (argv[0] !== "conform-repo") {
        console.error(USAGE);
        return 2;
    }
    if (argv[1] === "--pi" && argv.length === 3 && piRepo(argv[2]) !== undefined) {
        return conformRepo(piRepo(argv[2]));
    }
    const dash = argv.indexOf("--");
    if (dash !== 1 || dash + 1 >= argv.length) {
        console.error(USAGE);
        return 2;
    }
    const command = argv[dash + 1];
    const args = argv.slice(dash + 2);
    return conformRepo((dir) =>
        ServedSessionRepo.start(
            command,
            args.map((arg) => arg.replaceAll("{dir}", dir)),
        ),
    );
}

if (import.meta.url === `file://${process.argv[1]}`) {
    process.exitCode = await main(process.argv.slice(2));
}
