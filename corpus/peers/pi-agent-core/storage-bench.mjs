// pi's own storage benchmarks on pi's own stores, for `frameproof bench --family pi-storage`.
//
//   node --expose-gc storage-bench.mjs [--quick] [--budget-ms N] [--write-reps N]
//
// Runs STORAGE_READ_BENCHMARK_SCENARIOS on every STORAGE_BENCHMARK_DATASETS
// dataset (seeded with seedStorageBenchmark), the open of each dataset's JSONL
// file, and STORAGE_WRITE_BENCHMARK_SCENARIOS (each invocation on a fresh
// store, after the scenario's prepare, timed in groups of ten), on pi's MemoryStorage and JsonlStorage
// (through NodeExecutionEnv's file system; pi's JsonlStorage never fsyncs).
// Prints one JSON line per figure: {store, dataset, scenario, ops, nsPerOp,
// cpuNsPerOp}; CPU is process.cpuUsage() (user + system, every thread: V8's
// GC and compiler helpers count), the steadier figure on a shared machine.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKGROUND_CONTEXT } from "@earendil-works/pi-agent-core";
import { NodeExecutionEnv } from "@earendil-works/pi-agent-core/harness/env/nodejs";
import {
    STORAGE_BENCHMARK_DATASETS,
    STORAGE_READ_BENCHMARK_SCENARIOS,
    STORAGE_WRITE_BENCHMARK_SCENARIOS,
    seedStorageBenchmark,
} from "@earendil-works/pi-agent-core/harness/session/testing";
import { MemoryStorage } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/session/memory.js";
import { JsonlStorage } from "./node_modules/@earendil-works/pi-agent-core/dist/harness/session/jsonl/storage.js";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
function flag(name, fallback) {
    const at = argv.indexOf(name);
    return at >= 0 ? Number(argv[at + 1]) : fallback;
}
const budgetNs = BigInt(flag("--budget-ms", quick ? 60 : 500)) * 1_000_000n;
const writeReps = flag("--write-reps", quick ? 5 : 100);
const datasets = quick ? STORAGE_BENCHMARK_DATASETS.slice(0, 2) : STORAGE_BENCHMARK_DATASETS;

const dir = await mkdtemp(join(tmpdir(), "frameproof-pi-storage-bench-"));
const fileSystem = new NodeExecutionEnv({ cwd: dir });
let fileNo = 0;
const header = () => ({ v: 4, kind: "header", id: `bench-${fileNo}`, storageVersion: 1, createdAt: 0, cwd: dir });

const stores = {
    memory: async () => new MemoryStorage(),
    jsonl: async () => {
        const path = join(dir, `s-${fileNo++}.jsonl`);
        const storage = await JsonlStorage.create({ fileSystem, path }, header(), [], BACKGROUND_CONTEXT);
        storage.benchPath = path;
        return storage;
    },
};

function emit(store, dataset, scenario, ops, totalNs, cpuMicros) {
    console.log(JSON.stringify({ store, dataset, scenario, ops, nsPerOp: Number(totalNs) / ops, cpuNsPerOp: (cpuMicros * 1000) / ops }));
}

// collect runs a full collection (with --expose-gc) before each timed
// read loop and before a store's write scenarios, where the Go side does
// (runtime.GC): with CPU time, collector threads clearing the datasets
// read before would otherwise count as a commit's. Not before every
// commit: V8 sweeps concurrently after gc(), and that would be counted.
const collect = globalThis.gc ?? (() => {});

function cpuMicros(since) {
    const used = process.cpuUsage(since);
    return used.user + used.system;
}

// A timed loop: once untimed, then until the budget has passed. The
// clock is read once per batch, not once per op (a read of hrtime.bigint
// costs tens of ns, as much as the cheapest ops): batches double up to
// about batchSpanNs of work, as the Go side's Measure does.
const batchSpanNs = 5_000_000n;
async function timed(op) {
    await op();
    collect();
    let ops = 0;
    let batch = 1;
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    let now = start;
    for (;;) {
        for (let k = 0; k < batch; k++) await op();
        ops += batch;
        now = process.hrtime.bigint();
        if (now - start >= budgetNs) break;
        const perOp = (now - start) / BigInt(ops) || 1n;
        batch = Math.max(1, Math.min(2 * batch, Number(batchSpanNs / perOp)));
    }
    return [ops, now - start, cpuMicros(cpu)];
}

// interquartileMean is the mean of the middle half of xs, as the Go
// side's: a collection of the prepare's garbage lands in a few groups.
function interquartileMean(xs) {
    const s = [...xs].sort((a, b) => a - b);
    const mid = s.slice(Math.floor(s.length / 4), s.length - Math.floor(s.length / 4));
    return mid.reduce((a, b) => a + b, 0) / mid.length;
}

// writeGroup is how many fresh stores a write scenario commits to
// between two clock reads (a CPU reading costs about a µs, as much as the
// cheapest commit), as the Go side's timePiWrite does.
const writeGroup = 10;

try {
    for (const [name, make] of Object.entries(stores)) {
        for (const dataset of datasets) {
            const storage = await make();
            await seedStorageBenchmark(storage, dataset);
            for (const scenario of STORAGE_READ_BENCHMARK_SCENARIOS) {
                const want = scenario.expectedResult(dataset);
                const [ops, ns, cpu] = await timed(async () => {
                    const got = await scenario.run(storage, dataset);
                    if (got !== want) throw new Error(`${name} ${scenario.name}: got ${got}, want ${want}`);
                });
                emit(name, dataset.entryCount, scenario.name, ops, ns, cpu);
            }
            if (name === "jsonl") {
                const [ops, ns, cpu] = await timed(async () => {
                    const opened = await JsonlStorage.open({ fileSystem, path: storage.benchPath }, BACKGROUND_CONTEXT);
                    await opened.close(BACKGROUND_CONTEXT);
                });
                emit(name, dataset.entryCount, "open", ops, ns, cpu);
            }
            await storage.close(BACKGROUND_CONTEXT);
        }
        collect();
        for (const scenario of STORAGE_WRITE_BENCHMARK_SCENARIOS) {
            const walls = [];
            const cpus = [];
            // rep 0 is not timed: it warms the compiler, as timed()'s
            // first op does (the Go side skips its first group too)
            for (let rep = 0; rep <= writeReps; rep++) {
                const group = [];
                for (let k = 0; k < writeGroup; k++) {
                    const storage = await make();
                    if (scenario.prepare !== undefined) await scenario.prepare(storage);
                    group.push(storage);
                }
                const cpuStart = process.cpuUsage();
                const start = process.hrtime.bigint();
                for (const storage of group) {
                    const got = await scenario.run(storage);
                    if (got !== scenario.writeCount) throw new Error(`${name} ${scenario.name}: ${got} writes`);
                }
                if (rep > 0) {
                    walls.push(Number(process.hrtime.bigint() - start));
                    cpus.push(cpuMicros(cpuStart) * 1000);
                }
                for (const storage of group) await storage.close(BACKGROUND_CONTEXT);
            }
            console.log(JSON.stringify({
                store: name, dataset: 0, scenario: scenario.name, ops: writeReps * writeGroup,
                nsPerOp: interquartileMean(walls) / writeGroup, cpuNsPerOp: interquartileMean(cpus) / writeGroup,
            }));
        }
    }
} finally {
    await rm(dir, { recursive: true, force: true });
}
