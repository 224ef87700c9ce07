// frameproof subject protocol v1 — pi's own harness as a simulator subject.
//
// One process is one "process" of the subject: the Go side kills its
// process group (SIGKILL) to crash it and starts a fresh one that reopens
// the same JSONL file. The first stdout line is a hello; after that every
// stdin line is one JSON request and gets exactly one JSON response line,
// in order, echoing the request's "id". A response is written only once
// pi's harness is quiescent: nothing can happen until the simulator
// releases a parked commit, a provider event or a timer.
// SUBJECT-PROTOCOL.md beside this file is the protocol.
//
// What runs is pi's: AgentHarness over a StorageBackedSession whose storage
// is pi's GatingStorage around pi's JsonlStorage or MemoryStorage. What the
// driver owns: the clock (Date.now and timers), the id source (the
// session's idGenerator), and a provider it registers whose stream function
// pushes scripted pi-ai events one at a time on request.

import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// ---- the clock: Date.now and timers under the simulator's control ----
// (installed before pi's modules load: JsonlStorage and the repos capture
// Date.now as their default `now`)
let clock = 0;
Date.now = () => clock;
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
let timerSeq = 0;
const timers = new Map(); // id -> {due, fn, args}
globalThis.setTimeout = (fn, ms, ...args) => {
    const id = ++timerSeq;
    timers.set(id, { due: clock + Math.max(0, Number(ms) || 0), fn, args });
    return { __virtualTimer: id, unref() { return this; }, ref() { return this; }, hasRef() { return true; } };
};
globalThis.clearTimeout = (t) => {
    if (t && typeof t === "object" && "__virtualTimer" in t) timers.delete(t.__virtualTimer);
    else realClearTimeout(t);
};
function fireDueTimers() {
    const due = [...timers.entries()].filter(([, t]) => t.due <= clock).sort((a, b) => a[1].due - b[1].due || a[0] - b[0]);
    for (const [id, t] of due) {
        timers.delete(id);
        bump();
        t.fn(...t.args);
    }
}

// pi's packages come from the peer folder `--pi PEER_DIR` names (default:
// this script's own, pi-agent-core 0.85.1), as recovery-sweep.mjs does, so
// one driver runs every pinned release (corpus/peers/pi-agent-core-<v>/).
const PEER_DIR = (() => {
    const i = process.argv.indexOf("--pi");
    return i >= 0 ? resolve(process.argv[i + 1]) : dirname(fileURLToPath(import.meta.url));
})();
function peerImport(specifier, subpath) {
    const pkg = join(PEER_DIR, "node_modules", ...specifier.split("/"));
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    const entry = manifest.exports[subpath].import;
    return import(pathToFileURL(join(pkg, entry)).href);
}
const core = await peerImport("@earendil-works/pi-agent-core", ".");
const testing = await peerImport("@earendil-works/pi-agent-core", "./harness/session/testing");
const { NodeExecutionEnv } = await peerImport("@earendil-works/pi-agent-core", "./harness/env/nodejs");
const ai = await peerImport("@earendil-works/pi-ai", ".");
const coreDir = join(PEER_DIR, "node_modules", "@earendil-works", "pi-agent-core");
// files outside the package's exports map, by their path
const { JsonlStorage } = await import(pathToFileURL(join(coreDir, "dist/harness/session/jsonl/storage.js")).href);
const { MemoryStorage } = await import(pathToFileURL(join(coreDir, "dist/harness/session/memory.js")).href);
const { AgentHarness, StorageBackedSession, BACKGROUND_CONTEXT } = core;
const { GatingStorage, StorageDecorator } = testing;

const PROTOCOL = "frameproof-subject";
const PROTOCOL_VERSION = 1;
const version = JSON.parse(readFileSync(join(coreDir, "package.json"), "utf8")).version;

// A planted defect in the protocol layer (tests prove the simulator catches
// it): "drop-write" reports the first committed transaction of three or more
// writes without its last write; "keep-frames" reports the first one that
// deletes a frame list (a settlement) without that delete, a committed state
// the invariants reject; "no-hello" exits before its hello, as a driver whose
// packages are broken does (the campaign stops: exit 4, not a finding). pi
// itself is untouched.
const PLANT = process.env.FRAMEPROOF_SUBJECT_PLANT ?? "";
let planted = false;

function send(value) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
}

// ---- observations (deltas since the last response) ----
let activity = 0; // bumped by everything observable
function bump() {
    activity++;
}
let obs = freshObs();
function freshObs() {
    return { commits: [], events: [], consumed: [], frames: [], calls: [], requests: [], dropped: 0 };
}
let inflight = 0; // released commits not landed yet

// frames: what pi's encoder produced, in order (the encoder is pi-ai's
// class; the wrapper only records its output)
const encode = ai.AssistantMessageFrameEncoder.prototype.encode;
ai.AssistantMessageFrameEncoder.prototype.encode = function (event) {
    const frame = encode.call(this, event);
    obs.frames.push({ type: event.type, frame: frame === undefined ? null : frame });
    bump();
    return frame;
};

// ---- ids: UUIDv7 shaped, with the timestamp pi asks for ----
let idProcess = 0;
let idCounter = 0;
function hex(n, width) {
    return n.toString(16).padStart(width, "0").slice(-width);
}
const idGenerator = {
    next(timestampMs) {
        const ts = Math.max(0, Math.floor(timestampMs ?? clock));
        idCounter++;
        const t = hex(ts, 12);
        return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${hex(idProcess, 3)}-8${hex(idCounter >> 16, 3)}-${hex(idCounter, 12)}`;
    },
};

// ---- storage: Recorder(GatingStorage(JsonlStorage | MemoryStorage)) ----
let parked = []; // {n, writes}
let commitSeq = 0;
class Recorder extends StorageDecorator {
    commit(writes, context) {
        const rec = { n: ++commitSeq, writes: structuredClone(writes) };
        parked.push(rec);
        bump();
        const p = super.commit(writes, context);
        return p.then(
            (result) => {
                parked = parked.filter((r) => r !== rec);
                let reported = rec.writes;
                if (PLANT === "drop-write" && !planted && reported.length >= 3) {
                    planted = true;
                    reported = reported.slice(0, -1);
                }
                const framesDelete = (w) => w.kind === "list" && w.op === "delete" && w.namespace === "pi.pending.assistant_frame";
                if (PLANT === "keep-frames" && !planted && reported.length > 1 && reported.some(framesDelete)) {
                    planted = true;
                    reported = reported.filter((w) => !framesDelete(w));
                }
                obs.commits.push({ n: rec.n, writes: reported });
                bump();
                return result;
            },
            (error) => {
                parked = parked.filter((r) => r !== rec);
                obs.dropped++;
                bump();
                throw error;
            },
        );
    }
}

// ---- provider: scripted streams, one event per `event` request ----
const scripts = []; // queued responses: arrays of events
const streams = []; // {k, events, next, out, done}
const PROVIDER = "frameproof";
const API = "frameproof-scripted";
let modelDef;
function openStream(model, context, options) {
    return openScripted({ messages: context.messages.length }, options);
}
// pi's deferred poll (runtime/drive/deferred.ts performDeferredPoll calls
// Models.streamDeferred, which calls the provider's fetchDeferred): served
// like a request, from the next queued script; the request names the handle
function fetchDeferred(model, handle, options) {
    return openScripted({ messages: 0, deferred: handle.id }, options);
}
function openScripted(request, options) {
    const out = ai.createAssistantMessageEventStream();
    const k = streams.length;
    const script = scripts.shift();
    const s = { k, events: script ?? [], next: 0, out, done: false, scripted: script !== undefined };
    streams.push(s);
    obs.requests.push({ stream: k, ...request, scripted: s.scripted });
    bump();
    const signal = options?.signal;
    if (signal) {
        const onAbort = () => {
            if (s.done) return;
            // pi-ai's providers end an aborted request with an error event
            // whose reason is "aborted", carrying the latest partial
            const last = s.next > 0 ? s.events[s.next - 1] : undefined;
            const base = last?.partial ?? last?.message ?? last?.error ?? emptyMessage();
            const message = { ...base, stopReason: "aborted", errorMessage: "Request was aborted" };
            push(s, { type: "error", reason: "aborted", error: message });
        };
        if (signal.aborted) queueMicrotask(onAbort);
        else signal.addEventListener("abort", onAbort, { once: true });
    }
    return out;
}
function emptyMessage() {
    return {
        role: "assistant", content: [], api: API, provider: PROVIDER, model: modelDef.id,
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: "stop", timestamp: clock,
    };
}
function push(s, event) {
    obs.consumed.push({ stream: s.k, index: s.next, event });
    bump();
    s.out.push(event);
    if (event.type === "done") {
        s.done = true;
        s.out.end(event.message);
    } else if (event.type === "error") {
        s.done = true;
        s.out.end(event.error);
    }
}

// ---- the harness ----
let harness;
let lane;
let gate;
const calls = [];
const ctx = BACKGROUND_CONTEXT;

async function open(req) {
    clock = req.now ?? 0;
    idProcess = req.process ?? 0;
    idCounter = 0;
    modelDef = { id: req.model?.id ?? "scripted-1", contextWindow: req.model?.contextWindow ?? 128000, maxTokens: req.model?.maxTokens ?? 16384 };
    const provider = ai.createProvider({
        id: PROVIDER,
        auth: { apiKey: { name: "frameproof", resolve: async () => ({ auth: {} }) } },
        models: [{ id: modelDef.id, name: modelDef.id, api: API, provider: PROVIDER, baseUrl: "http://localhost:0", reasoning: false,
            input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            contextWindow: modelDef.contextWindow, maxTokens: modelDef.maxTokens }],
        // cancelDeferred: reconcile.ts's best-effort cancel of a deferred leaf
        api: { stream: openStream, streamSimple: openStream, fetchDeferred, cancelDeferred: async () => {} },
    });
    const models = ai.createModels();
    models.setProvider(provider);
    let storage;
    const metadata = { id: req.sessionId ?? "frameproof-session", createdAt: 0, storageVersion: 1 };
    if (req.session === "jsonl") {
        const fileSystem = new NodeExecutionEnv({ cwd: req.cwd ?? process.cwd() });
        if (req.reopen) {
            storage = await JsonlStorage.open({ fileSystem, path: req.path }, ctx);
        } else {
            const header = { kind: "header", v: 4, id: metadata.id, cwd: req.cwd ?? process.cwd(), storageVersion: 1, createdAt: 0 };
            storage = await JsonlStorage.create({ fileSystem, path: req.path }, header, [], ctx);
        }
    } else if (req.session === "memory") {
        storage = new MemoryStorage();
    } else {
        throw new Error(`unknown session kind ${req.session}`);
    }
    gate = new GatingStorage(storage);
    gate.arm();
    const session = new StorageBackedSession(metadata, new Recorder(gate), { idGenerator });
    const created = await AgentHarness.create({ session, models, model: provider.getModels()[0], retry: req.retry }, ctx);
    harness = created.harness;
    harness.events.watch(undefined, () => true).start((event) => {
        obs.events.push(event);
        bump();
    });
    // the lane is acquired by a call, so its commits park like any other
    startCall("lane", async () => {
        lane = await harness.lane(req.lane ?? "main", ctx);
        return { open: created.open };
    });
    return {};
}

function startCall(name, fn) {
    const k = calls.length;
    calls.push(name);
    Promise.resolve()
        .then(fn)
        .then(
            (value) => {
                obs.calls.push({ call: k, name, ok: true, value: jsonSafe(value) });
                bump();
            },
            (error) => {
                obs.calls.push({ call: k, name, ok: false, error: String(error?.message ?? error) });
                bump();
            },
        );
    return { call: k };
}
function jsonSafe(v) {
    try {
        return JSON.parse(JSON.stringify(v ?? null));
    } catch {
        return String(v);
    }
}
function laneCall(name, fn) {
    if (lane === undefined) throw new Error("no lane yet");
    return startCall(name, fn);
}

const ops = {
    open,
    prompt: (r) => laneCall("prompt", () => lane.prompt(r.text, ctx)),
    resume: () => laneCall("resume", () => lane.resume(ctx)),
    // Lane.drive (runtime/lane.ts drive) of the current operation without a
    // deferred-poll permit (resume is the drive that carries one)
    drive: (r) => laneCall("drive", () => lane.drive({ operationId: r.operationId, pollDeferred: false, waitForRetry: true }, ctx)),
    abort: () => laneCall("abort", () => lane.abort(ctx)),
    steer: (r) => laneCall("steer", () => lane.steer(r.text, undefined, ctx)),
    followUp: (r) => laneCall("followUp", () => lane.followUp(r.text, undefined, ctx)),
    nextRun: (r) => laneCall("nextRun", () => lane.nextRun(r.text, undefined, ctx)),
    cancelQueued: (r) => laneCall("cancelQueued", () => lane.cancelQueued(r.entryId, ctx)),
    // Harness.close (runtime/harness.js close): seals every lane (the
    // active drive's gate closes: it admits no more commits) and the
    // session's mutation line (a mutation not yet started is refused), and
    // resolves once the mutation already running — a parked commit — has
    // landed and the storage closed. Not awaited, like a lane call.
    close: () => startCall("close", () => harness.close(ctx)),
    // Lane.watch (runtime/lane.js watch): a reader's snapshot,
    // captureLaneSnapshot on the lane's mutation line (it queues behind a
    // parked commit); the value is the snapshot, the watch unsubscribed.
    watch: () =>
        laneCall("watch", async () => {
            const handle = await lane.watch(ctx);
            const snapshot = handle.snapshot;
            handle.unsubscribe();
            return snapshot;
        }),
    script: (r) => {
        scripts.push(r.events);
        return {};
    },
    event: () => {
        const s = streams.find((x) => !x.done && x.next < x.events.length);
        if (s === undefined) throw new Error("no open stream has an event to release");
        push(s, s.events[s.next++]);
        return {};
    },
    commit: async (r) => {
        if ((r.index ?? 0) !== 0) throw new Error("GatingStorage releases parked commits in FIFO order: index must be 0");
        if (gate.pending() === 0) throw new Error("no parked commit");
        inflight++;
        gate.next(1).then(
            () => inflight--,
            () => inflight--,
        );
        return {};
    },
    drop: () => {
        gate.discard();
        return {};
    },
    advance: (r) => {
        clock = r.now;
        fireDueTimers();
        return {};
    },
    observe: () => ({}),
};

// quiescence: no observable activity and no commit landing for a run of
// event-loop turns
async function quiesce() {
    let stable = 0;
    let seen = activity;
    for (let turns = 0; stable < 8; turns++) {
        await new Promise((r) => setImmediate(r));
        if (activity === seen && inflight === 0) stable++;
        else {
            stable = 0;
            seen = activity;
        }
        if (turns > 200000) throw new Error("subject never became quiescent");
    }
}

function snapshotObs() {
    const out = obs;
    obs = freshObs();
    out.parked = parked.map((p) => ({ n: p.n, writes: p.writes }));
    const open = streams.filter((s) => !s.done);
    out.streams = { requested: streams.length, open: open.map((s) => ({ stream: s.k, next: s.next, total: s.events.length })) };
    out.timers = [...timers.values()].map((t) => t.due).sort((a, b) => a - b);
    out.now = clock;
    return out;
}

process.on("unhandledRejection", () => {});
if (PLANT === "no-hello") {
    process.stderr.write("subject-driver: planted: exiting before the hello\n");
    process.exit(1);
}
send({ hello: PROTOCOL, version: PROTOCOL_VERSION, implementation: "pi-agent-core", implementationVersion: version });
const rl = createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on("line", (line) => {
    chain = chain.then(async () => {
        let req;
        try {
            req = JSON.parse(line);
        } catch (error) {
            send({ id: null, ok: false, error: `bad request: ${error.message}` });
            return;
        }
        const op = ops[req.op];
        if (op === undefined) {
            send({ id: req.id, ok: false, error: `unknown op ${req.op}` });
            return;
        }
        try {
            const value = await op(req);
            await quiesce();
            send({ id: req.id, ok: true, value, obs: snapshotObs() });
        } catch (error) {
            send({ id: req.id, ok: false, error: String(error?.stack ?? error) });
        }
    });
});
rl.on("close", () => {
    void realSetTimeout;
    process.exit(0);
});
