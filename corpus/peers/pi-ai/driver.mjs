// frameproof stdio protocol v1 — driver for the real pi-ai frame codec.
//
// One long-lived process. The first stdout line is a hello; after that every
// stdin line is one JSON request and gets exactly one JSON response line, in
// order, echoing the request's "id". All output is produced by JSON.stringify,
// so the Go side can compare frames and messages byte for byte.
// See README.md in this directory for the protocol.

import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { AssistantMessageFrameEncoder, reduceAssistantMessageFrames } from "@earendil-works/pi-ai/utils/assistant-message-frame";
import { parseStreamingJson } from "@earendil-works/pi-ai/utils/json-parse";

const PROTOCOL = "frameproof-stdio";
const PROTOCOL_VERSION = 1;

// The version is read from the installed package, not hard-coded, so the
// hello line tells the truth about what node_modules actually holds.
function installedPiAiVersion() {
    // package.json is not in pi-ai's "exports"; resolve an exported module and
    // walk up to the package directory.
    const entry = fileURLToPath(import.meta.resolve("@earendil-works/pi-ai/utils/json-parse"));
    const dir = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
}

function resolveVersion() {
    try {
        return installedPiAiVersion();
    } catch {
        return "unknown";
    }
}

// Lines are written synchronously in order; a response is always one line.
function send(value) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
}

class ProtocolError extends Error {}

function errorMessage(err) {
    return err instanceof Error ? err.message : String(err);
}

function requireArray(request, field) {
    const value = request[field];
    if (!Array.isArray(value)) throw new ProtocolError(`op ${request.op}: field "${field}" must be an array`);
    return value;
}

function requireIterations(request) {
    const n = request.iterations;
    if (!Number.isSafeInteger(n) || n < 1) throw new ProtocolError(`op ${request.op}: field "iterations" must be a positive integer`);
    return n;
}

// encode: a fresh encoder per request; each event carries its own partial,
// which is exactly the partial the encoder reads for that event.
function opEncode(request) {
    const events = requireArray(request, "events");
    const encoder = new AssistantMessageFrameEncoder();
    const frames = [];
    for (let index = 0; index < events.length; index++) {
        let frame;
        try {
            frame = encoder.encode(events[index]);
        } catch (err) {
            return { id: request.id, frames, error: { index, message: errorMessage(err) } };
        }
        frames.push(frame === undefined ? null : frame);
    }
    return { id: request.id, frames };
}

function opReduce(request) {
    const frames = requireArray(request, "frames");
    let message;
    try {
        message = reduceAssistantMessageFrames(frames);
    } catch (err) {
        return { id: request.id, error: { message: errorMessage(err) } };
    }
    return { id: request.id, message: message === undefined ? null : message };
}

function opParse(request) {
    const inputs = requireArray(request, "inputs");
    inputs.forEach((input, index) => {
        if (typeof input !== "string") throw new ProtocolError(`op parse: inputs[${index}] must be a string`);
    });
    return { id: request.id, results: inputs.map((input) => parseStreamingJson(input)) };
}

// stringifiedBytes keeps the JSON.stringify results observable, so the
// serialization a bench with "stringify" measures cannot be optimized away.
let stringifiedBytes = 0;

// encodeOnce runs one fresh encoder over events; with stringify it also
// serializes every frame, the work a caller does to store or send it.
function encodeOnce(events, stringify) {
    const encoder = new AssistantMessageFrameEncoder();
    for (let index = 0; index < events.length; index++) {
        let frame;
        try {
            frame = encoder.encode(events[index]);
        } catch (err) {
            return { index, message: errorMessage(err) };
        }
        if (stringify && frame !== undefined) stringifiedBytes += JSON.stringify(frame).length;
    }
    return undefined;
}

// Untimed warm-up runs let the JIT settle before the measured loop.
function warmups(iterations) {
    return Math.max(1, Math.floor(iterations / 10));
}

// cpuNanos is the CPU time (user + system, all of node's threads: V8's
// garbage collector and compiler helpers included) since start, in ns. On a
// shared machine it is what the work cost, where wall time also counts the
// time other processes held the CPU.
function cpuNanos(start) {
    const used = process.cpuUsage(start);
    return (used.user + used.system) * 1000;
}

function requireOptionalBoolean(request, field) {
    const value = request[field];
    if (value === undefined) return false;
    if (typeof value !== "boolean") throw new ProtocolError(`op ${request.op}: field "${field}" must be a boolean`);
    return value;
}

function opBench(request) {
    const events = requireArray(request, "events");
    const iterations = requireIterations(request);
    const stringify = requireOptionalBoolean(request, "stringify");
    const failure = encodeOnce(events, stringify);
    if (failure) return { id: request.id, error: failure };
    for (let i = 0; i < warmups(iterations); i++) encodeOnce(events, stringify);
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) encodeOnce(events, stringify);
    const elapsed = Number(process.hrtime.bigint() - start);
    const cpu = cpuNanos(cpuStart);
    const n = iterations * events.length;
    return {
        id: request.id,
        nsPerEvent: n === 0 ? 0 : elapsed / n,
        cpuNsPerEvent: n === 0 ? 0 : cpu / n,
        events: events.length,
        iterations,
        stringify,
    };
}

function reduceOnce(frames) {
    try {
        reduceAssistantMessageFrames(frames);
    } catch (err) {
        return { message: errorMessage(err) };
    }
    return undefined;
}

// reduceStoredOnce is the stored-bytes round trip: JSON.parse of each stored
// frame line, the reduction, and JSON.stringify of the message (what a
// recovery that reads a frame log and writes the message back does).
// sink keeps the result observable so the work cannot be skipped.
let sink = 0;
function reduceStoredOnce(lines) {
    try {
        const frames = new Array(lines.length);
        for (let i = 0; i < lines.length; i++) frames[i] = JSON.parse(lines[i]);
        sink += JSON.stringify(reduceAssistantMessageFrames(frames)).length;
    } catch (err) {
        return { message: errorMessage(err) };
    }
    return undefined;
}

// reduceBench throughput counts the frames' JSONL bytes (one JSON.stringify
// line per frame plus its newline), i.e. the size of the stored frame log.
// With "stored": true each pass starts from those lines and ends with the
// message's JSON (reduceStoredOnce); otherwise it reduces the parsed frames.
function opReduceBench(request) {
    const frames = requireArray(request, "frames");
    const iterations = requireIterations(request);
    const stored = requireOptionalBoolean(request, "stored");
    const lines = frames.map((frame) => JSON.stringify(frame));
    const input = stored ? lines : frames;
    const once = stored ? reduceStoredOnce : reduceOnce;
    const failure = once(input);
    if (failure) return { id: request.id, error: failure };
    let bytes = 0;
    for (const line of lines) bytes += Buffer.byteLength(line, "utf8") + 1;
    for (let i = 0; i < warmups(iterations); i++) once(input);
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) once(input);
    const elapsed = Number(process.hrtime.bigint() - start);
    const cpu = cpuNanos(cpuStart);
    const seconds = elapsed / 1e9;
    return {
        id: request.id,
        nsPerFrame: frames.length === 0 ? 0 : elapsed / (iterations * frames.length),
        cpuNsPerFrame: frames.length === 0 ? 0 : cpu / (iterations * frames.length),
        mbPerSec: seconds === 0 ? 0 : (bytes * iterations) / 1e6 / seconds,
        frames: frames.length,
        bytes,
        iterations,
    };
}

const OPS = {
    encode: opEncode,
    reduce: opReduce,
    parse: opParse,
    bench: opBench,
    reduceBench: opReduceBench,
};

function handleLine(line) {
    let request;
    try {
        request = JSON.parse(line);
    } catch (err) {
        send({ id: null, protocolError: `bad JSON request line: ${errorMessage(err)}` });
        return;
    }
    if (typeof request !== "object" || request === null || Array.isArray(request)) {
        send({ id: null, protocolError: "request must be a JSON object" });
        return;
    }
    const id = request.id === undefined ? null : request.id;
    const op = Object.hasOwn(OPS, request.op) ? OPS[request.op] : undefined;
    if (op === undefined) {
        send({ id, protocolError: `unknown op: ${JSON.stringify(request.op) ?? "undefined"}` });
        return;
    }
    let response;
    try {
        response = JSON.stringify(op(request));
    } catch (err) {
        const kind = err instanceof ProtocolError ? "" : "driver failure: ";
        send({ id, protocolError: `${kind}${errorMessage(err)}` });
        return;
    }
    process.stdout.write(`${response}\n`);
}

// Manual line splitting over raw bytes: no line-length cap (16 MB+ requests),
// and UTF-8 is decoded per complete line so multi-byte characters never split.
function serve() {
    let pending = [];
    process.stdin.on("data", (chunk) => {
        let start = 0;
        for (;;) {
            const newline = chunk.indexOf(0x0a, start);
            if (newline === -1) break;
            pending.push(chunk.subarray(start, newline));
            const line = Buffer.concat(pending).toString("utf8");
            pending = [];
            start = newline + 1;
            if (line.trim() !== "") handleLine(line);
        }
        if (start < chunk.length) pending.push(chunk.subarray(start));
    });
    process.stdin.on("end", () => {
        const line = Buffer.concat(pending).toString("utf8");
        pending = [];
        if (line.trim() !== "") handleLine(line);
    });
}

send({ hello: PROTOCOL, version: PROTOCOL_VERSION, implementation: "pi-ai", implementationVersion: resolveVersion() });
serve();
