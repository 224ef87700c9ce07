// recovery-sweep: pi's own recovery at every commit boundary of scripted runs.
//
// For each scripted run, pi's harness (AgentHarness over a JSONL session made
// by pi's JsonlSessionRepo, pi-ai's fauxProvider as the model) runs to its
// end once; the session file then holds one line per commit. A crash after
// commit k leaves exactly the header and the first k commit lines (pi only
// appends, one line per commit), so that prefix is the crash image at k.
// Each image is copied into a fresh sessions root, opened by a FRESH
// JsonlSessionRepo, handed to a fresh harness, and `lane.resume` runs until
// the first of: a provider call (the stream never yields), a retry wait
// (its timer never fires), or resume returning. The lines pi appended by
// then are pi's reopen; the one committed right after pi emitted an
// assistant `message_end` with `recovery: true` is pi's recovery transaction.
//
// Determinism: Date.now is a virtual clock (runs start at RUN_T0 and only a
// retry wait moves it; every reopen reads REOPEN_T), Math.random is a seeded
// generator reset per run and per reopen, and pi's session idGenerator hands
// out counters. Every run is executed twice and must give the same bytes.
//
// Output: one JSON line per crash point on stdout:
//   {"run","k","of","crashed":"<image text>","reopen":["<line>",...],
//    "recovery":<index in reopen or -1>,"cut":"provider|retry_wait|resume|error",
//    "detail":"...","harness":{"retry":{...},"streamOptions":{...}}}
// and last a summary line {"summary":{...}}. Usage:
//   node recovery-sweep.mjs [--pi PEER_DIR] [--runs a,b] [--every N] [--list] [--random N [--seed S]]
// --pi names the peer folder pi's packages load from (default: this one).
// --every N keeps every N-th crash point of each run (and its last) — the CI slice.
// --random N adds N seeded random runs (randomRun below) after the named ones.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, sep, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// pi's packages come from the peer folder --pi names (default: this
// script's own, pi-agent-core 0.85.1), so one script sweeps every pinned
// release: corpus/peers/pi-agent-core-<version>/ holds the later ones.
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
const { AgentHarness, JsonlSessionRepo, BACKGROUND_CONTEXT } = await peerImport("@earendil-works/pi-agent-core", ".");
// pi's default retry option (harness/config.js DEFAULT_RETRY_POLICY; from
// 0.87.1 on it names pi-ai's maxAgentDelayMs), printed for runs that do not
// set one; the file is outside the package's exports map, so by its path
const { DEFAULT_RETRY_POLICY } = await import(
	pathToFileURL(join(PEER_DIR, "node_modules", "@earendil-works", "pi-agent-core", "dist", "harness", "config.js")).href
);
const { NodeExecutionEnv } = await peerImport("@earendil-works/pi-agent-core", "./harness/env/nodejs");
const {
	createModels,
	fauxProvider,
	fauxAssistantMessage,
	fauxText,
	fauxThinking,
	fauxToolCall,
	createAssistantMessageEventStream,
} = await peerImport("@earendil-works/pi-ai", ".");

export const RUN_T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
export const REOPEN_T = RUN_T0 + 3_600_000;
const SESSION_ID = "0199a000-0000-7000-8000-000000000000";
const LANE = "main";
// the session's cwd as its header records it (never created or entered)
const SESSION_CWD = "/frameproof/pi-recovery-sweep";

// ---- determinism seams -----------------------------------------------------

let clock = RUN_T0;
Date.now = () => clock;

let seed = 1;
Math.random = () => {
	seed = (seed * 1103515245 + 12345) % 2147483648;
	return seed / 2147483648;
};

// Only pi's retry wait (runtime/drive/retry.js waitUntil) sets a timer on
// these paths. While running, the wait moves the virtual clock to its end and
// fires at once; while reopening, it is the cut: it never fires.
let retryWaitHook = (fire, ms) => {
	clock += ms;
	setImmediate(fire);
};
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = (fn, ms, ...args) => {
	const stack = new Error().stack ?? "";
	if (stack.includes(`${sep}runtime${sep}drive${sep}retry.js`)) {
		retryWaitHook(() => fn(...args), ms);
		return { unref() {}, ref() {}, [Symbol.toPrimitive]: () => 0 };
	}
	if (stack.includes(`${sep}providers${sep}faux.js`)) {
		fauxChunkHook(() => fn(...args));
		return { unref() {}, ref() {}, [Symbol.toPrimitive]: () => 0 };
	}
	return realSetTimeout(fn, ms, ...args);
};

// pi-ai's faux provider waits between two chunks on a timer when the run
// sets tokensPerSecond (providers/faux.js scheduleChunk). A real wait made
// the cancel run depend on the machine's load (under load the abort's
// commit could land after the next chunk). Instead the next chunk goes out
// once the harness delivered the message_update of the chunk before it
// and, when the run requested an abort, once that request fired the
// provider request's abort signal: what the 50 ms wait gave on an idle
// machine, now on every machine. (One update per chunk: the runs that set
// tokensPerSecond stream a single text block.)
const gate = { updates: 0, abortRequested: false, signal: undefined };
let fauxChunkHook = (fire) => {
	const after = gate.updates;
	const poll = () => {
		const delivered = gate.updates > after;
		const aborted = !gate.abortRequested || gate.signal?.aborted === true;
		if (delivered && aborted) fire();
		else setImmediate(poll);
	};
	setImmediate(poll);
};

function counterIds(prefix) {
	let n = 0;
	return {
		next() {
			n++;
			return `${prefix}${n.toString(16).padStart(12, "0")}`;
		},
	};
}

// ---- scripted runs ---------------------------------------------------------

const longText = "The quick brown fox jumps over the lazy dog; then it naps.";
const args = { path: "notes/todo.txt", lines: [3, 14], mode: "append" };

// Each run: replies the faux provider streams in order, and a script driving
// the lane. faux options: tokenSize 1 (4 characters a delta), no timers.
export const RUNS = {
	text: {
		replies: () => [fauxAssistantMessage(longText)],
		async drive(lane) {
			await lane.prompt("say something", BACKGROUND_CONTEXT);
		},
	},
	thinking: {
		replies: () => [fauxAssistantMessage([fauxThinking("Let me think about foxes."), fauxText("Foxes nap.")])],
		async drive(lane) {
			await lane.prompt("think first", BACKGROUND_CONTEXT);
		},
	},
	tool_call: {
		// a tool call whose arguments stream 4 characters at a time (crash
		// points stop them mid-JSON); no tool is configured, so pi answers
		// "unavailable" and the second turn answers in text
		replies: () => [
			fauxAssistantMessage([fauxText("Reading."), fauxToolCall("read", args, { id: "call_1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage("Could not read it."),
		],
		async drive(lane) {
			await lane.prompt("read my notes", BACKGROUND_CONTEXT);
		},
	},
	two_runs: {
		replies: () => [fauxAssistantMessage("First answer."), fauxAssistantMessage("Second answer.")],
		async drive(lane) {
			await lane.prompt("one", BACKGROUND_CONTEXT);
			await lane.prompt("two", BACKGROUND_CONTEXT);
		},
	},
	retry: {
		// a retryable provider error after a partial reply, then a success
		replies: () => [
			fauxAssistantMessage("Partial answ", { stopReason: "error", errorMessage: "503 service unavailable: overloaded" }),
			fauxAssistantMessage("Whole answer."),
		],
		async drive(lane) {
			await lane.prompt("try hard", BACKGROUND_CONTEXT);
		},
	},
	deferred: {
		// the reply is deferred; the prompt suspends; resume polls it
		options: { streamOptions: { deferred: true } },
		faux: { deferred: { pollAfterMs: 0 } },
		replies: () => [fauxAssistantMessage("Deferred answer arrives.")],
		async drive(lane) {
			await lane.prompt("later please", BACKGROUND_CONTEXT);
			await lane.resume(BACKGROUND_CONTEXT);
		},
	},
	slow_retry: {
		// two retryable errors with a 45 s base delay, then a success: the
		// second wait (90 s) is past pi-ai's 60 s DEFAULT_MAX_AGENT_RETRY_DELAY_MS,
		// which 0.87.1 and later apply (retryDelayMs) and 0.85.1 does not
		// (runtime/drive/retry.js retryDelay)
		options: { retry: { enabled: true, maxRetries: 3, baseDelayMs: 45_000 } },
		replies: () => [
			fauxAssistantMessage("Almost", { stopReason: "error", errorMessage: "503 service unavailable: overloaded" }),
			fauxAssistantMessage("Nearly", { stopReason: "error", errorMessage: "503 service unavailable: overloaded" }),
			fauxAssistantMessage("Done at last."),
		],
		async drive(lane) {
			await lane.prompt("be patient", BACKGROUND_CONTEXT);
		},
	},
	no_retries: {
		// retries off: recovery settles at the attempt cap and fails the run
		options: { retry: { enabled: true, maxRetries: 0, baseDelayMs: 1_000 } },
		replies: () => [fauxAssistantMessage([fauxThinking("Hmm."), fauxText("Short.")])],
		async drive(lane) {
			await lane.prompt("once only", BACKGROUND_CONTEXT);
		},
	},
	cancel: {
		// an abort requested mid-stream, at the fourth streamed update; the
		// faux provider's next delta waits for the abort's signal (gate,
		// above), so the abort (whose event delivery trails the frame commit)
		// is queued behind the fourth update's frame on every machine
		faux: { tokensPerSecond: 20 },
		replies: () => [fauxAssistantMessage(longText)],
		async drive(lane, harness) {
			let updates = 0;
			harness.events.on("message_update", () => {
				if (++updates === 4) {
					gate.abortRequested = true;
					void lane.abort(BACKGROUND_CONTEXT);
				}
			});
			await lane.prompt("never mind", BACKGROUND_CONTEXT);
		},
	},
};

// --random N --seed S: N more runs, random_0 .. random_<N-1>, drawn from a
// seeded generator over the same ingredients: one to three prompts, each
// answered by text, thinking then text, a tool call then text, a retryable
// error then text, a reply cut at its length limit, or a non-retryable
// error; or a single streamed text aborted at its n-th update (the cancel
// run's way). A run whose prompt fails still leaves pi's session behind.
function mulberry32(a) {
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function randomRun(rand, i) {
	const int = (n) => Math.floor(rand() * n);
	const pick = (xs) => xs[int(xs.length)];
	const words = ["fox", "naps", "quick", "δέλτα", "😀", "line\nbreak", 'a "quote"', "tab\there", "\u2028"];
	const text = (min = 1) => Array.from({ length: min + int(8) }, () => pick(words)).join(" ");
	if (int(5) === 0) {
		const said = text(12);
		const at = 1 + int(4);
		return {
			faux: { tokensPerSecond: 20 },
			replies: () => [fauxAssistantMessage(said)],
			async drive(lane, harness) {
				let updates = 0;
				harness.events.on("message_update", () => {
					if (++updates === at) {
						gate.abortRequested = true;
						void lane.abort(BACKGROUND_CONTEXT);
					}
				});
				await lane.prompt("never mind", BACKGROUND_CONTEXT);
			},
		};
	}
	const prompts = [];
	const specs = [];
	for (let turn = 0, n = 1 + int(3); turn < n; turn++) {
		prompts.push(text());
		const kind = int(6);
		const a = text();
		const b = text();
		const tool = { name: pick(["read", "write"]), args: { path: text(), n: int(1000), deep: { on: int(2) === 1 } }, id: `call_${i}_${turn}` };
		specs.push({ kind, a, b, tool });
	}
	const build = ({ kind, a, b, tool }) => {
		switch (kind) {
			case 0:
				return [fauxAssistantMessage(a)];
			case 1:
				return [fauxAssistantMessage([fauxThinking(a), fauxText(b)])];
			case 2:
				return [
					fauxAssistantMessage([fauxText(a), fauxToolCall(tool.name, tool.args, { id: tool.id })], { stopReason: "toolUse" }),
					fauxAssistantMessage(b),
				];
			case 3:
				return [fauxAssistantMessage(a, { stopReason: "error", errorMessage: "503 service unavailable: overloaded" }), fauxAssistantMessage(b)];
			case 4:
				return [fauxAssistantMessage(a, { stopReason: "length" })];
			default:
				return [fauxAssistantMessage(a, { stopReason: "error", errorMessage: "400 bad request: no" })];
		}
	};
	return {
		options: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1_000 } },
		replies: () => specs.flatMap(build),
		async drive(lane) {
			for (const p of prompts) {
				try {
					await lane.prompt(p, BACKGROUND_CONTEXT);
				} catch {
					// a failed run is still a session pi wrote
				}
			}
		},
	};
}

function addRandomRuns(n, seed0) {
	const rand = mulberry32(seed0);
	const names = [];
	for (let i = 0; i < n; i++) {
		RUNS[`random_${i}`] = randomRun(rand, i);
		names.push(`random_${i}`);
	}
	return names;
}

// ---- running and reopening -------------------------------------------------

function sessionFiles(root) {
	const out = [];
	for (const d of readdirSync(root, { withFileTypes: true })) {
		const p = join(root, d.name);
		if (d.isDirectory()) out.push(...sessionFiles(p));
		else if (d.name.endsWith(".jsonl")) out.push(p);
	}
	return out;
}

function fauxFor(run) {
	const faux = fauxProvider({ api: "faux", tokenSize: { min: 1, max: 1 }, ...(run.faux ?? {}) });
	const models = createModels();
	models.setProvider(faux.provider);
	return { faux, models };
}

async function runOnce(name) {
	const run = RUNS[name];
	clock = RUN_T0;
	seed = 1;
	retryWaitHook = (fire, ms) => {
		clock += ms;
		setImmediate(fire);
	};
	const dir = mkdtempSync(join(tmpdir(), "pi-sweep-run-"));
	try {
		const fileSystem = new NodeExecutionEnv({ cwd: dir });
		const repo = new JsonlSessionRepo({ fileSystem, sessionsRoot: join(dir, "sessions"), now: () => clock });
		const session = await repo.create({ cwd: SESSION_CWD, id: SESSION_ID }, BACKGROUND_CONTEXT);
		session.idGenerator = counterIds("0199a000-0000-7000-8000-");
		const { faux, models } = fauxFor(run);
		faux.setResponses(run.replies());
		gate.updates = 0;
		gate.abortRequested = false;
		gate.signal = undefined;
		const { harness } = await AgentHarness.create(
			{ session, models: signalCapturing(models), model: faux.getModel(), ...(run.options ?? {}) },
			BACKGROUND_CONTEXT,
		);
		harness.events.on("message_update", () => {
			gate.updates++;
		});
		const lane = await harness.lane(LANE, BACKGROUND_CONTEXT);
		await run.drive(lane, harness);
		await harness.close(BACKGROUND_CONTEXT);
		const [path] = sessionFiles(join(dir, "sessions"));
		return { text: readFileSync(path, "utf8"), rel: path.slice(join(dir, "sessions").length + 1) };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

// The models pi's running harness sees: the faux provider's, with each
// request's abort signal kept for the chunk gate.
function signalCapturing(models) {
	return new Proxy(models, {
		get(target, prop, receiver) {
			if (prop === "streamSimple" || prop === "stream") {
				return (model, context, options) => {
					gate.signal = options?.signal;
					return target[prop](model, context, options);
				};
			}
			const v = Reflect.get(target, prop, receiver);
			return typeof v === "function" ? v.bind(target) : v;
		},
	});
}

// The models pi's reopened harness sees: every provider effect is recorded
// and never answers, which is the cut.
function cuttingModels(models, onCut) {
	const never = (what) => {
		onCut("provider", what);
		return createAssistantMessageEventStream();
	};
	return new Proxy(models, {
		get(target, prop, receiver) {
			if (prop === "streamSimple" || prop === "stream") return () => never(String(prop));
			if (prop === "streamDeferred" || prop === "fetchDeferred") return () => never(String(prop));
			if (prop === "cancelDeferred") return async () => {};
			const v = Reflect.get(target, prop, receiver);
			return typeof v === "function" ? v.bind(target) : v;
		},
	});
}

async function reopen(name, image, rel) {
	const run = RUNS[name];
	clock = REOPEN_T;
	seed = 7;
	const dir = mkdtempSync(join(tmpdir(), "pi-sweep-reopen-"));
	let cut;
	const cutPromise = new Promise((resolve) => {
		cut = (kind, detail) => resolve({ kind, detail });
	});
	retryWaitHook = (_fire, ms) => cut("retry_wait", `${ms}ms`);
	try {
		const root = join(dir, "sessions");
		// the image keeps its header's cwd; the repo opens it by metadata
		const path = join(root, rel);
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, image);
		const fileSystem = new NodeExecutionEnv({ cwd: dir });
		const repo = new JsonlSessionRepo({ fileSystem, sessionsRoot: root, now: () => clock });
		const header = JSON.parse(image.slice(0, image.indexOf("\n")));
		const session = await repo.open(
			{ id: header.id, cwd: header.cwd, createdAt: header.createdAt, storageVersion: header.storageVersion, path },
			BACKGROUND_CONTEXT,
		);
		session.idGenerator = counterIds("0199a000-0000-7000-9000-");
		const { faux, models } = fauxFor(run);
		void faux;
		const { harness } = await AgentHarness.create(
			{ session, models: cuttingModels(models, cut), model: faux.getModel(), ...(run.options ?? {}) },
			BACKGROUND_CONTEXT,
		);
		const before = image.split("\n").length - 1;
		let recoveryAt = -1;
		harness.events.on("message_end", (ev) => {
			// pi's tool leaf also marks replayed tool outcomes recovery: true;
			// only an assistant message_end is an orphaned response's recovery
			if (ev.recovery === true && ev.message?.role === "assistant" && recoveryAt < 0) {
				recoveryAt = readFileSync(path, "utf8").split("\n").length - 1 - before;
			}
		});
		const lane = await harness.lane(LANE, BACKGROUND_CONTEXT);
		lane.resume(BACKGROUND_CONTEXT).then(
			(r) => cut("resume", r.ok ? `ok ${r.value?.status ?? ""}`.trim() : `err ${r.error?._tag}`),
			(e) => cut("error", e instanceof Error ? `${e.message}${e.cause ? `: ${e.cause.message ?? e.cause}` : ""}` : String(e)),
		);
		const c = await cutPromise;
		const after = readFileSync(path, "utf8");
		if (!after.startsWith(image)) throw new Error(`${name}: reopen rewrote the image`);
		const lines = after.slice(image.length).split("\n").filter((l) => l.length > 0);
		void harness.close(BACKGROUND_CONTEXT).catch(() => {});
		return { reopen: lines, recovery: recoveryAt >= 0 && recoveryAt < lines.length ? recoveryAt : -1, cut: c.kind, detail: c.detail };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

async function main() {
	const argv = process.argv.slice(2);
	let names = Object.keys(RUNS);
	let every = 1;
	let random = 0;
	let randomSeed = 1;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--runs") names = argv[++i].split(",");
		else if (argv[i] === "--pi") i++; // read at load (PEER_DIR)
		else if (argv[i] === "--every") every = Number(argv[++i]);
		else if (argv[i] === "--random") random = Number(argv[++i]);
		else if (argv[i] === "--seed") randomSeed = Number(argv[++i]);
		else if (argv[i] === "--list") {
			process.stdout.write(`${JSON.stringify({ runs: Object.keys(RUNS) })}\n`);
			return;
		} else throw new Error(`unknown argument ${argv[i]}`);
	}
	if (!Number.isSafeInteger(random) || random < 0) throw new Error("--random must be a non-negative integer");
	if (random > 0) names = [...names, ...addRandomRuns(random, randomSeed)];
	for (const n of names) if (!(n in RUNS)) throw new Error(`unknown run ${n}`);
	if (!Number.isSafeInteger(every) || every < 1) throw new Error("--every must be a positive integer");
	const summary = { runs: 0, points: 0, recoveries: 0, version: piVersion() };
	for (const name of names) {
		const first = await runOnce(name);
		const second = await runOnce(name);
		if (first.text !== second.text && process.env.SWEEP_DEBUG) { writeFileSync("/tmp/a.jsonl", first.text); writeFileSync("/tmp/b.jsonl", second.text); } if (first.text !== second.text) throw new Error(`${name}: two runs wrote different bytes (not deterministic)`);
		const lines = first.text.split("\n").slice(0, -1);
		// the harness options a reopening implementation needs to continue
		// the run as pi does (pi keeps them in the process, not the file)
		const harness = {
			retry: RUNS[name].options?.retry ?? DEFAULT_RETRY_POLICY,
			streamOptions: RUNS[name].options?.streamOptions ?? {},
		};
		const n = lines.length - 1;
		summary.runs++;
		for (let k = 1; k <= n; k++) {
			if (k % every !== 0 && k !== n) continue;
			const image = `${lines.slice(0, k + 1).join("\n")}\n`;
			const r = await reopen(name, image, first.rel);
			summary.points++;
			if (r.recovery >= 0) summary.recoveries++;
			process.stdout.write(`${JSON.stringify({ run: name, k, of: n, crashed: image, ...r, harness })}\n`);
		}
	}
	process.stdout.write(`${JSON.stringify({ summary })}\n`);
}

function piVersion() {
	const pkg = join(PEER_DIR, "node_modules", "@earendil-works", "pi-agent-core", "package.json");
	return JSON.parse(readFileSync(pkg, "utf8")).version;
}

main().then(
	// exit once stdout has taken every line (a large --random sweep's output
	// must not be cut by the exit)
	() => process.stdout.write("", () => process.exit(0)),
	(e) => {
		process.stderr.write(`recovery-sweep: ${e instanceof Error ? e.stack : String(e)}\n`);
		process.exit(1);
	},
);
