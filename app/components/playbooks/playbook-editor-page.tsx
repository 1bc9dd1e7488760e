import { Link } from '@remix-run/react'
import type { SubmissionResult } from '@conform-to/react'
import type { SpecErrorDetail } from '#app/components/resource-editor/spec-field.tsx'
import type { PlaybookEditorValues } from '#app/lib/playbook-editor-form.ts'
import { PlaybookEditor } from './playbook-editor.tsx'

/** /playbooks/new and /playbooks/{id}/edit: the breadcrumb back to the catalogue, then the editor. */
export function PlaybookEditorPage({
  loaded,
  answer,
  busy,
  backHref,
}: {
  loaded: { mode: 'create' | 'edit'; label: string; values: PlaybookEditorValues; readOnlyReason: string | null; source: string | null; version: string }
  answer: { result: SubmissionResult<string[]>; specDetail: SpecErrorDetail | null } | null
  busy: boolean
  backHref: string
}) {
  return (
    <section className="flex max-w-4xl flex-col gap-4 p-6" data-testid="playbook-editor-page" data-mode={loaded.mode} data-source={loaded.source ?? ''}>
      <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
        <ol className="flex items-center gap-1.5">
          <li>
            <Link to={backHref} className="hover:text-foreground hover:underline">
              Playbooks
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="truncate text-foreground" data-testid="playbook-editor-label">
            {loaded.label}
          </li>
        </ol>
      </nav>
      <PlaybookEditor
        key={loaded.version}
        mode={loaded.mode}
        values={loaded.values}
        lastResult={answer?.result}
        specDetail={answer?.specDetail}
        readOnlyReason={loaded.readOnlyReason}
        busy={busy}
        backHref={backHref}
      />
    </section>
  )
}
