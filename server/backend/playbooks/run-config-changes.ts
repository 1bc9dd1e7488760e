import type { Queryable } from '#server/db/client.ts'
import type { PlaybookRunRow } from './playbook-model.ts'

/**
 * The config changes a run against a config item leaves in that item's history (resource-specs
 * §2.7): PlaybookScheduled when it is created (run-create.ts), PlaybookStarted when the runner
 * first picks it, PlaybookCompleted or PlaybookFailed when it ends (failed, timed out or
 * cancelled). external_change_id names the run and the kind, so a step repeated after a crash
 * merges into the same change instead of writing a second one.
 */
export type RunConfigChangeType = 'PlaybookScheduled' | 'PlaybookStarted' | 'PlaybookCompleted' | 'PlaybookFailed'

const VERB: Record<RunConfigChangeType, string> = {
  PlaybookScheduled: 'scheduled',
  PlaybookStarted: 'started',
  PlaybookCompleted: 'completed',
  PlaybookFailed: 'failed',
}

export type RunForConfigChange = Pick<PlaybookRunRow, 'id' | 'playbook_id' | 'config_id' | 'created_by' | 'status' | 'error'>

/** Writes the change when the run targets a config item; returns whether it wrote one. */
export async function writeRunConfigChange(tx: Queryable, run: RunForConfigChange, type: RunConfigChangeType): Promise<boolean> {
  if (!run.config_id) return false
  const { rowCount } = await tx.query(
    `INSERT INTO config_changes (config_id, external_change_id, change_type, severity, source, summary, details, created_by)
     SELECT $1, $2, $3, $4, 'Playbook', concat('Playbook ', coalesce(nullif(p.title, ''), p.name), ' ', $5::text,
              CASE WHEN $6::text IS NULL OR $6::text = '' THEN '' ELSE concat(': ', $6::text) END),
            jsonb_build_object('run_id', $7::uuid, 'playbook_id', p.id, 'playbook', p.name, 'status', $8::text, 'error', $6::text),
            $9::uuid
     FROM playbooks p WHERE p.id = $10`,
    [
      run.config_id,
      `playbook-run/${run.id}/${type}`,
      type,
      type === 'PlaybookFailed' ? 'medium' : 'info',
      failedVerb(type, run.status),
      type === 'PlaybookFailed' ? run.error : null,
      run.id,
      run.status,
      run.created_by,
      run.playbook_id,
    ],
  )
  return rowCount > 0
}

function failedVerb(type: RunConfigChangeType, status: string): string {
  if (type !== 'PlaybookFailed' || status === 'failed') return VERB[type]
  return status === 'timed_out' ? 'timed out' : status
}
