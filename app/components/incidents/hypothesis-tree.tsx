import { getFormProps, getInputProps, getSelectProps, type SubmissionResult } from '@conform-to/react'
import { Form, Link } from '@remix-run/react'
import { CheckCircle2, Circle, Flag, Plus } from '#app/components/ui/icons.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { ErrorList } from '#app/components/forms.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { useSchemaForm } from '#app/components/use-schema-form.ts'
import { AddHypothesisShape, HypothesisStatusShape } from '#app/lib/incident-form-shapes.ts'
import type { HypothesisNode, ShownHypothesis } from '#app/lib/incident-detail.ts'
import { HYPOTHESIS_STATUSES, labelOf } from '#app/lib/incidents.ts'
import type { HypothesisRow } from '#app/lib/incidents.server.ts'
import { HypothesisStatusBadge } from './incident-badges.tsx'
import { SELECT_CLASS } from './incident-fields.tsx'

/** The failed result of one form on the page, by its key (`<intent>:<row>`), if it is the one that failed. */
type GetResult = (form: string) => SubmissionResult | undefined

type Node = HypothesisNode<ShownHypothesis<HypothesisRow> & { id: string; parent_id: string | null; type: string }>
type ShownEvidence = Node['evidences'][number]

/**
 * Root > factor > solution (nested by the loader: buildHypothesisTree), each node with its status form, its evidence and a form for its
 * next level. Every control is a small POST form with an `intent`, so the tree works the same
 * with JavaScript off.
 */
export function HypothesisTree({ roots, canWrite, getResult }: { roots: Node[]; canWrite: boolean; getResult: GetResult }) {
  return (
    <section aria-labelledby="hypotheses-heading" className="flex flex-col gap-3" data-testid="hypotheses">
      <h2 id="hypotheses-heading" className="text-base font-semibold">
        Hypotheses
      </h2>
      {roots.length === 0 ? <p className="text-sm text-muted-foreground">No hypotheses yet.</p> : null}
      <ul className="flex flex-col gap-3">
        {roots.map((node) => (
          <HypothesisItem key={node.id} node={node} canWrite={canWrite} getResult={getResult} />
        ))}
      </ul>
      {canWrite ? <AddHypothesisForm type="root" parentId={null} result={getResult('add-hypothesis')} /> : null}
    </section>
  )
}

function HypothesisItem({ node, canWrite, getResult }: { node: Node; canWrite: boolean; getResult: GetResult }) {
  const childType = node.childType
  return (
    <li className="rounded-md border bg-card p-3" data-testid={`hypothesis-${node.type}`} data-hypothesis-id={node.id}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="rounded bg-muted px-1.5 py-0.5 text-[11px] font-semibold uppercase tracking-wide text-muted-foreground">{node.type}</span>
        <span className="font-medium" data-testid="hypothesis-title">
          {node.title}
        </span>
        <HypothesisStatusBadge status={node.status} />
        {canWrite ? <HypothesisStatusForm node={node} result={getResult(`hypothesis-status:${node.id}`)} /> : null}
      </div>
      {node.evidences.length ? (
        <ul className="mt-3 flex flex-col gap-2" aria-label={`Evidence for ${node.title}`}>
          {node.evidences.map((evidence) => (
            <EvidenceItem key={evidence.id} evidence={evidence} canWrite={canWrite} />
          ))}
        </ul>
      ) : null}
      {node.children.length ? (
        <ul className="mt-3 flex flex-col gap-3 border-l-2 pl-4">
          {node.children.map((child) => (
            <HypothesisItem key={child.id} node={child} canWrite={canWrite} getResult={getResult} />
          ))}
        </ul>
      ) : null}
      {canWrite && childType ? <AddHypothesisForm type={childType} parentId={node.id} result={getResult(`add-hypothesis:${node.id}`)} /> : null}
    </li>
  )
}

function HypothesisStatusForm({ node, result }: { node: Node; result: SubmissionResult | undefined }) {
  const [form, fields] = useSchemaForm(HypothesisStatusShape, {
    id: `hypothesis-status-${node.id}`,
    lastResult: result,
    defaultValue: { status: node.status },
  })
  const { key: _key, ...statusProps } = getSelectProps(fields.status)
  return (
    <Form method="post" preventScrollReset {...getFormProps(form)} className="ml-auto flex flex-wrap items-center gap-1" data-testid="hypothesis-status-form">
      <input type="hidden" name="intent" value="hypothesis-status" />
      <input type="hidden" name="id" value={node.id} />
      <label className="sr-only" htmlFor={fields.status.id}>
        Status of {node.title}
      </label>
      {/* Keyed by the stored status so the select follows it after the reload. */}
      <select {...statusProps} key={node.status} className={SELECT_CLASS} data-testid="hypothesis-status-select">
        {HYPOTHESIS_STATUSES.map((status) => (
          <option key={status} value={status}>
            {labelOf(status)}
          </option>
        ))}
      </select>
      <Button type="submit" variant="outline" size="sm" data-testid="hypothesis-status-submit">
        Set
      </Button>
      <ErrorList id={form.errorId} errors={Object.values(form.allErrors).flat()} className="w-full" />
    </Form>
  )
}

function AddHypothesisForm({ type, parentId, result }: { type: string; parentId: string | null; result: SubmissionResult | undefined }) {
  const key = parentId ?? 'root'
  const [form, fields] = useSchemaForm(AddHypothesisShape, {
    id: `add-${type}-${key}`,
    lastResult: result,
  })
  const { key: _key, ...titleProps } = getInputProps(fields.title, { type: 'text' })
  return (
    <Form method="post" preventScrollReset {...getFormProps(form)} className="mt-2 flex flex-col gap-1" data-testid={`add-${type}-form`}>
      <input type="hidden" name="intent" value="add-hypothesis" />
      <input type="hidden" name="type" value={type} />
      {parentId ? <input type="hidden" name="parent_id" value={parentId} /> : null}
      <div className="flex items-center gap-2">
        <label className="sr-only" htmlFor={fields.title.id}>
          New {type} title
        </label>
        <Input {...titleProps} placeholder={`Add ${type === 'root' ? 'a root cause' : `a ${type}`}`} compact data-testid={`add-${type}-title`} />
        <Button type="submit" variant="outline" size="sm" data-testid={`add-${type}-submit`}>
          <Plus aria-hidden="true" />
          Add {labelOf(type)}
        </Button>
      </div>
      <ErrorList id={fields.title.errorId} errors={[...(form.errors ?? []), ...(fields.title.errors ?? [])]} />
    </Form>
  )
}

function EvidenceTarget({ evidence }: { evidence: ShownEvidence }) {
  let text = ''
  let status: string | null = null
  switch (evidence.type) {
    case 'check':
      text = evidence.check?.name ?? 'Check'
      status = evidence.check?.status ?? null
      break
    case 'config':
      text = [evidence.config?.type, evidence.config?.name].filter(Boolean).join(' ') || 'Config'
      status = evidence.config?.health ?? null
      break
    case 'topology':
      text = evidence.component?.name ?? 'Component'
      status = evidence.component?.status ?? null
      break
    case 'config_change':
      text = [evidence.config_change?.change_type, evidence.config_change?.summary].filter(Boolean).join(': ') || 'Config change'
      break
    case 'config_analysis':
      text = [evidence.config_analysis?.analyzer, evidence.config_analysis?.message].filter(Boolean).join(': ') || 'Config analysis'
      break
    default:
      text = labelOf(evidence.type)
  }
  const target = evidence.link
  return (
    <span className="flex flex-wrap items-center gap-2">
      <span className="rounded bg-muted px-1.5 py-0.5 text-[11px] font-semibold uppercase text-muted-foreground">{labelOf(evidence.type.replace('_', ' '))}</span>
      {target ? (
        <Link to={target.href} className="font-medium hover:underline" data-testid="evidence-link">
          {text}
        </Link>
      ) : (
        <span className="font-medium">{text}</span>
      )}
      {status ? (
        <span data-testid="evidence-status" className={status === 'healthy' ? 'text-success' : status === 'unhealthy' ? 'text-danger' : 'text-muted-foreground'}>
          {status}
        </span>
      ) : null}
    </span>
  )
}

function EvidenceItem({ evidence, canWrite }: { evidence: ShownEvidence; canWrite: boolean }) {
  const isDefinition = Boolean(evidence.definition_of_done)
  const isDone = Boolean(evidence.done)
  return (
    <li className="flex flex-col gap-1 rounded-md border bg-background p-2 text-sm" data-testid="evidence" data-evidence-type={evidence.type}>
      <EvidenceTarget evidence={evidence} />
      {evidence.description ? <p className="text-muted-foreground">{evidence.description}</p> : null}
      <div className="flex flex-wrap items-center gap-2 text-xs text-muted-foreground">
        <DateTime value={evidence.created_at} className="tabular-nums" />
        {isDefinition ? (
          <span className="inline-flex items-center gap-1 font-medium text-foreground" data-testid="definition-of-done">
            <Flag aria-hidden="true" className="size-3.5" />
            Definition of done
            {isDone ? <CheckCircle2 aria-label="done" className="size-3.5 text-success" /> : <Circle aria-label="not done" className="size-3.5" />}
          </span>
        ) : null}
        {canWrite ? (
          <>
            <Form method="post" preventScrollReset>
              <input type="hidden" name="intent" value="evidence-dod" />
              <input type="hidden" name="id" value={evidence.id} />
              <input type="hidden" name="value" value={isDefinition ? 'false' : 'true'} />
              <Button type="submit" variant="ghost" size="sm" data-testid="evidence-dod-toggle">
                {isDefinition ? 'Remove from definition of done' : 'Mark as definition of done'}
              </Button>
            </Form>
            {isDefinition ? (
              <Form method="post" preventScrollReset>
                <input type="hidden" name="intent" value="evidence-done" />
                <input type="hidden" name="id" value={evidence.id} />
                <input type="hidden" name="value" value={isDone ? 'false' : 'true'} />
                <Button type="submit" variant="ghost" size="sm" data-testid="evidence-done-toggle">
                  {isDone ? 'Mark as not done' : 'Mark as done'}
                </Button>
              </Form>
            ) : null}
          </>
        ) : null}
      </div>
    </li>
  )
}
