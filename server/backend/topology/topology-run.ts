import type { Db } from '#server/db/client.ts'
import { evaluateTopology } from './topology-evaluate.ts'
import type { TopologyRow, TopologyRunOptions, TopologyRunOutcome } from './topology-model.ts'
import { storeTopology } from './topology-store.ts'

/** One run of a Topology: evaluate its spec, then store the tree (the engine wraps this in a lease and a job_history row). */
export async function runTopology(db: Db, topology: TopologyRow, options: TopologyRunOptions = {}): Promise<TopologyRunOutcome> {
  const evaluation = await evaluateTopology(db, topology, options)
  const summary = await storeTopology(db, topology, evaluation, options)
  return { summary, errors: [...evaluation.errors, ...(summary.errors ?? [])] }
}
