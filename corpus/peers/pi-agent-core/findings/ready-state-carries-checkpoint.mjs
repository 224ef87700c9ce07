// pi finding: the assistant.ready operation state keeps the checkpoint's
// continuation and triggerEntryId. Run from the repository root after
// `npm ci --ignore-scripts --prefix corpus/peers/pi-agent-core`:
//
//   node corpus/peers/pi-agent-core/findings/ready-state-carries-checkpoint.mjs
//
// It prompts pi's harness once (pi-ai's faux provider, pi's MemoryStorage)
// and prints every pi.op.state value the run commits. The
// "assistant.ready" state carries "continuation" and "triggerEntryId":
// runtime/drive/boundary.js assistantReadyAtBoundary(lane, state, scope, ...)
// spreads `...scope`, and every caller (checkpoint.js runCheckpoint,
// boundary.js, structural.js) passes the whole current operation state,
// not operationScopeOf(current) as the starting and intent transitions do.
import { AgentHarness, BACKGROUND_CONTEXT, StorageBackedSession } from "@earendil-works/pi-agent-core";
import { StorageDecorator } from "@earendil-works/pi-agent-core/harness/session/testing";
import { createModels, fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(import.meta.resolve("@earendil-works/pi-agent-core"));
const { MemoryStorage } = await import(join(entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`)), "dist/harness/session/memory.js"));

class Log extends StorageDecorator {
    commit(writes, context) {
        for (const w of writes) {
            if (w.namespace === "pi.op.state" && w.op === "set") console.log(JSON.stringify(w.value));
        }
        return super.commit(writes, context);
    }
}
const faux = fauxProvider();
faux.setResponses([fauxAssistantMessage("hi")]);
const models = createModels();
models.setProvider(faux.provider);
const session = new StorageBackedSession({ id: "s", createdAt: 0, storageVersion: 1 }, new Log(new MemoryStorage()));
const { harness } = await AgentHarness.create({ session, models, model: faux.getModel() }, BACKGROUND_CONTEXT);
const lane = await harness.lane("main", BACKGROUND_CONTEXT);
await lane.prompt("hello", BACKGROUND_CONTEXT);
await harness.close(BACKGROUND_CONTEXT);
