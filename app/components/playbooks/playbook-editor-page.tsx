import { Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import type { SubmissionResult } from '@conform-to/react'
import type { SpecErrorDetail } from '#app/components/resource-editor/spec-field.tsx'
import type { PlaybookEditorValues } from '#app/lib/playbook-editor-form.ts'
import { PLAYBOOKS_HREF } from '#app/lib/playbook-editor-form-shape.ts'
import { PlaybookEditor } from './playbook-editor.tsx'

type LoadedEditor = { mode: 'create' | 'edit'; label: string; values: PlaybookEditorValues; readOnlyReason: string | null; source: string | null; version: string }
type EditorAnswer = { result: SubmissionResult<string[]>; specDetail: SpecErrorDetail | null }

/** The page of both editor routes, from their loader (loadPlaybookEditor) and action (playbookEditorAction). */
export function PlaybookEditorRoute() {
  const loaded = useLoaderData<LoadedEditor>()
  const answer = useActionData<EditorAnswer>() ?? null
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formMethod?.toLowerCase() === 'post'
  return <PlaybookEditorPage loaded={loaded} answer={answer} busy={busy} backHref={PLAYBOOKS_HREF} />
}

/** /playbooks/new and /playbooks/{id}/edit: the breadcrumb back to the catalogue, then the editor. */
export function PlaybookEditorPage({
  loaded,
  answer,
  busy,
  backHref,
}: {
  loaded: LoadedEditor
  answer: EditorAnswer | null
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
