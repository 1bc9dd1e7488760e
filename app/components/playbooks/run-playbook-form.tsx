import type { SubmissionResult } from '@conform-to/react'
import { Form, Link, useNavigation, useSubmit } from '@remix-run/react'
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react'
import type { PlaybookParameterSpec } from '#contract/playbook/playbook-vocabulary.ts'
import { InlineError } from '#app/components/inline-error.tsx'
import { Modal as ServerRenderedModal } from '#app/components/modal/modal.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { formShape, useSchemaForm } from '#app/components/use-schema-form.ts'
import { cn } from '#app/lib/cn.ts'
import { ParameterField, type ParameterChoices } from './parameter-fields.tsx'
import { parameterConstraint, paramField } from './run-form-model.ts'
import { runDialogHref, type RunTargetParams } from './playbook-links.ts'

// The dialog frame is only drawn when the form opens from a page in the running app; a document
// load draws the page instead, so the frame's code loads on demand (decisions 007, 016).
const Modal = import.meta.env.SSR
  ? ServerRenderedModal
  : /* @__PURE__ */ lazy(() => import('#app/components/modal/modal.tsx').then((module) => ({ default: module.Modal })))

export type TargetChoice = { id: string; name: string; type: string | null }
export type TargetKindKey = keyof RunTargetParams

const KIND_LABEL: Record<TargetKindKey, string> = { config_id: 'Config', component_id: 'Component', check_id: 'Check' }

export type RunPlaybookFormProps = {
  playbook: { id: string; title: string; description: string | null }
  target: { kind: TargetKindKey; id: string; name: string | null } | null
  targetChoices: Partial<Record<TargetKindKey, TargetChoice[]>>
  /** null while a resource must be chosen first. */
  params: PlaybookParameterSpec[] | null
  paramsError: string | null
  options: ParameterChoices
  returnTo: string
  lastResult: SubmissionResult<string[]> | null | undefined
  /** A dialog over the console when opened from a page with JavaScript; the whole page otherwise. */
  asDialog: boolean
}

/**
 * The Run Playbook form (spec 002 §2 "Playbook run"): a resource picker when the playbook
 * selects resources, then a field per parameter; Run reads 'Running...' while the post is out,
 * and is disabled (with JavaScript) until the browser finds every field valid.
 */
export function RunPlaybookForm(props: RunPlaybookFormProps) {
  const { playbook, target, targetChoices, params, paramsError, options, returnTo, lastResult, asDialog } = props
  const shape = formShape<Record<string, unknown>>(parameterConstraint(params ?? []))
  const defaults = Object.fromEntries((params ?? []).filter((param) => param.default !== undefined).map((param) => [param.name, param.default]))
  const [form, fields] = useSchemaForm(shape, { id: 'run-playbook', lastResult, defaultValue: { params: defaults } })
  const navigation = useNavigation()
  const submitting = navigation.state === 'submitting' && navigation.formMethod?.toUpperCase() === 'POST' && navigation.formAction?.startsWith(`/playbooks/${playbook.id}/run`)
  // A state, not a ref: the form may mount after this component (inside the dialog, once its code has loaded).
  const [formElement, setFormElement] = useState<HTMLFormElement | null>(null)
  const [valid, setValid] = useState(true)
  useEffect(() => {
    if (!formElement) return
    const check = () => setValid(formElement.checkValidity())
    check()
    formElement.addEventListener('input', check)
    formElement.addEventListener('change', check)
    return () => {
      formElement.removeEventListener('input', check)
      formElement.removeEventListener('change', check)
    }
  }, [formElement, params])

  const kinds = Object.keys(targetChoices) as TargetKindKey[]
  const needsTarget = kinds.length > 0 && !target
  const paramFields = (fields.params as unknown as { getFieldset: () => unknown }).getFieldset() as Record<string, { id: string; initialValue: unknown; errors?: string[]; key?: string }>
  const canRun = !needsTarget && params !== null && !paramsError

  const body = (
    <div className="flex flex-col gap-4" data-testid="run-playbook">
      {playbook.description ? <p className="text-sm text-muted-foreground">{playbook.description}</p> : null}
      {kinds.length ? <TargetPicker kinds={kinds} choices={targetChoices} target={target} returnTo={returnTo} playbookId={playbook.id} /> : null}
      {target && !kinds.length && target.name ? (
        <p className="text-sm" data-testid="run-target">
          {KIND_LABEL[target.kind]}: <span className="font-medium">{target.name}</span>
        </p>
      ) : null}
      {needsTarget ? (
        <p className="text-sm text-muted-foreground" data-testid="run-select-resource">
          Please select a resource to see the parameters.
        </p>
      ) : paramsError ? (
        <InlineError message={paramsError} />
      ) : (
        <Form method="post" action={runDialogHref(playbook.id, target ? { [target.kind]: target.id } : {}, returnTo)} id={form.id} noValidate={form.noValidate} ref={setFormElement} className="flex flex-col gap-4" data-testid="run-playbook-form">
          {target ? <input type="hidden" name={target.kind} value={target.id} /> : null}
          {form.errors?.length ? <InlineError message={form.errors.join(' ')} /> : null}
          {params?.length ? (
            params.map((param) => {
              const field = paramFields[param.name]
              return (
                <ParameterField
                  key={`${param.name}-${field?.key ?? ''}`}
                  param={param}
                  choices={options}
                  state={{ id: field?.id ?? `run-playbook-${paramField(param.name)}`, constraint: shape.constraint[paramField(param.name)] ?? {}, value: field?.initialValue, errors: field?.errors }}
                />
              )
            })
          ) : (
            <p className="text-sm text-muted-foreground" data-testid="run-no-parameters">
              No parameters for this playbook.
            </p>
          )}
          {asDialog ? null : <RunButtons returnTo={returnTo} disabled={!canRun || !valid || submitting} submitting={submitting} />}
        </Form>
      )}
    </div>
  )
  if (asDialog) {
    return (
      <Suspense fallback={null}>
        <Modal title={`Run ${playbook.title}`} closeTo={returnTo} size="small" testId="run-playbook-dialog" footer={<RunButtons returnTo={returnTo} disabled={!canRun || !valid || submitting} submitting={submitting} form="run-playbook" />}>
          {body}
        </Modal>
      </Suspense>
    )
  }
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 p-6" data-testid="run-playbook-page">
      <h1 className="text-lg font-semibold">Run {playbook.title}</h1>
      {body}
    </div>
  )
}

function RunButtons({ returnTo, disabled, submitting, form }: { returnTo: string; disabled: boolean; submitting: boolean; form?: string }): ReactNode {
  return (
    <div className="flex justify-end gap-2">
      <Link to={returnTo} className={buttonVariants({ variant: 'outline' })} data-testid="run-playbook-cancel">
        Cancel
      </Link>
      <button type="submit" form={form} disabled={disabled} className={buttonVariants()} data-testid="run-playbook-submit">
        {submitting ? 'Running...' : 'Run'}
      </button>
    </div>
  )
}

/**
 * The resource the run is for: a GET form that puts the choice in the URL, so the server
 * loads the parameters with their defaults templated against it. With JavaScript a choice
 * submits at once; without, the Choose button does.
 */
function TargetPicker({ kinds, choices, target, returnTo, playbookId }: { kinds: TargetKindKey[]; choices: RunPlaybookFormProps['targetChoices']; target: RunPlaybookFormProps['target']; returnTo: string; playbookId: string }) {
  const submit = useSubmit()
  return (
    <Form method="get" action={`/playbooks/${playbookId}/run`} className="flex flex-col gap-3" data-testid="run-target-picker">
      <input type="hidden" name="returnTo" value={returnTo} />
      {kinds.map((kind) => (
        <div key={kind} className="flex flex-col gap-1.5">
          <Label htmlFor={`run-target-${kind}`}>{KIND_LABEL[kind]}</Label>
          <div className="flex gap-2">
            <select
              id={`run-target-${kind}`}
              name={kind}
              defaultValue={target?.kind === kind ? target.id : ''}
              onChange={(event) => submit(event.currentTarget.form, { replace: true, preventScrollReset: true })}
              className={cn('flex h-9 w-full rounded-md border border-input bg-card px-3 text-sm')}
              data-testid={`run-target-${kind}`}
            >
              <option value="">Select a {KIND_LABEL[kind].toLowerCase()}…</option>
              {(choices[kind] ?? []).map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.name}
                  {choice.type ? ` (${choice.type})` : ''}
                </option>
              ))}
            </select>
            <noscript>
              <button type="submit" className={buttonVariants({ variant: 'outline' })}>
                Choose
              </button>
            </noscript>
          </div>
        </div>
      ))}
    </Form>
  )
}
