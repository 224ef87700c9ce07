// frameproof provider protocol v1 — runs pi-ai 1.0.3's own streaming
// providers (anthropic-messages, openai-completions, openai-responses,
// google-generative-ai) against frameproof's loopback server.
//
// One long-lived process. The first stdout line is a hello. Each stdin line
// is a request {"id","op":"stream","wire","baseUrl","apiKey","model","provider"};
// the driver answers with one {"id","event":E} line per pi-ai event, in push
// order, then {"id","end":true}. E is JSON.stringify of the event taken at the
// moment the provider pushed it, so its "partial" is the live accumulator as
// it was when the event was emitted (pi-ai hands the same object to every
// event; a later snapshot would show it ahead of the event).
// See props/provider/PROTOCOL.md. No network: every request goes to baseUrl.

import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { EventStream } from "@earendil-works/pi-ai/utils/event-stream";

const PROTOCOL = "frameproof-provider";
const PROTOCOL_VERSION = 1;

const PROVIDERS = {
    "anthropic-messages": "@earendil-works/pi-ai/api/anthropic-messages",
    "openai-completions": "@earendil-works/pi-ai/api/openai-completions",
    "openai-responses": "@earendil-works/pi-ai/api/openai-responses",
    "google-generative-ai": "@earendil-works/pi-ai/api/google-generative-ai",
};

function installedPiAiVersion() {
    try {
        const entry = fileURLToPath(import.meta.resolve("@earendil-works/pi-ai/utils/json-parse"));
        const dir = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
        return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
    } catch {
        return "unknown";
    }
}

function send(value) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
}

// Snapshot every event at push time, as the consumer will receive it
// (EventStream drops pushes after its terminal event, so those are not
// recorded either). Streams run one at a time, so one recorder suffices.
let active = null;
const originalPush = EventStream.prototype.push;
EventStream.prototype.push = function (event) {
    if (active && !this.done) active.push(JSON.stringify(event));
    return originalPush.call(this, event);
};

function modelFor(request) {
    return {
        id: request.model,
        name: request.model,
        api: request.wire,
        provider: request.provider,
        baseUrl: request.baseUrl,
        reasoning: true,
        input: ["text"],
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: 200000,
        maxTokens: 8192,
    };
}

async function runStream(request) {
    const modulePath = PROVIDERS[request.wire];
    if (!modulePath) {
        send({ id: request.id, protocolError: `unknown wire: ${JSON.stringify(request.wire)}` });
        return;
    }
    const { stream } = await import(modulePath);
    const context = { messages: [{ role: "user", content: "fuzz", timestamp: 0 }] };
    const lines = [];
    active = lines;
    try {
        const s = stream(modelFor(request), context, { apiKey: request.apiKey, maxRetries: 0, timeoutMs: 20000 });
        for await (const _event of s) {
            // events are recorded at push time
        }
    } catch (err) {
        send({ id: request.id, protocolError: `driver failure: ${err instanceof Error ? err.message : String(err)}` });
        return;
    } finally {
        active = null;
    }
    for (const json of lines) process.stdout.write(`{"id":${JSON.stringify(request.id)},"event":${json}}\n`);
    send({ id: request.id, end: true });
}

// Requests run strictly one after another.
let queue = Promise.resolve();
function handleLine(line) {
    let request;
    try {
        request = JSON.parse(line);
    } catch (err) {
        send({ id: null, protocolError: `bad JSON request line: ${err.message}` });
        return;
    }
    if (request?.op !== "stream") {
        send({ id: request?.id ?? null, protocolError: `unknown op: ${JSON.stringify(request?.op)}` });
        return;
    }
    queue = queue.then(() => runStream(request));
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.trim() !== "") handleLine(line);
    }
});
process.stdin.on("end", () => {
    if (buffered.trim() !== "") handleLine(buffered);
});

send({ hello: PROTOCOL, version: PROTOCOL_VERSION, implementation: "pi-ai", implementationVersion: installedPiAiVersion() });
