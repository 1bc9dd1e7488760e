import type { FieldName, FormMetadata, SubmissionResult } from '@conform-to/react'
import { useEffect, useId, useState } from 'react'
import type { FormShape } from '#app/lib/form-shape.ts'

export { formShape, type FormShape } from '#app/lib/form-shape.ts'

type SchemaFormOptions<Input> = {
  id?: string
  lastResult?: SubmissionResult<string[]> | null
  defaultValue?: Partial<Input> | Record<string, unknown>
}

type Errors = Record<string, string[]>
type FormState = {
  /** What the fields render with: the server's echo of the last post, else the default values. */
  initial: Record<string, unknown>
  /** The form's current values (kept from its `input` events once hydrated). */
  value: Record<string, unknown>
  error: Errors
  /** Per-field React keys, renewed when a field's value is replaced (an update intent, a reset). */
  key: Record<string, string>
  status?: 'success' | 'error'
  /** How many answers of the server this form has been given since it mounted. */
  reports: number
}

export const INTENT = '__intent__'

/** Field names as conform writes them: `a.b`, `a[0].b`. */
function pathOf(name: string): string[] {
  return name ? name.split(/\.|\[(\d+)\]/).filter((part) => part !== undefined && part !== '') : []
}

function valueAt(value: unknown, name: string): unknown {
  let current = value
  for (const part of pathOf(name)) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

function withValueAt(root: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  const path = pathOf(name)
  if (path.length === 0) return (value ?? {}) as Record<string, unknown>
  const copy = structuredClone(root)
  let target: Record<string, unknown> = copy
  for (const [index, part] of path.entries()) {
    if (index === path.length - 1) {
      target[part] = value
    } else {
      const next = target[part]
      target[part] = next !== null && typeof next === 'object' ? next : /^\d+$/.test(path[index + 1]!) ? [] : {}
      target = target[part] as Record<string, unknown>
    }
  }
  return copy
}

/** Default values as the browser would post them (conform's `serialize`): numbers as text, true as 'on'. */
function serialize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(serialize)
  if (value instanceof Date) return value.toISOString()
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, serialize(item)]))
  if (typeof value === 'boolean') return value ? 'on' : undefined
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString()
  return value ?? undefined
}

/** A form's fields as a nested object; a name given more than once becomes a list. */
function formValue(form: HTMLFormElement): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  const seen = new Set<string>()
  for (const [name, item] of new FormData(form)) {
    if (name === INTENT || typeof item !== 'string') continue
    const previous = seen.has(name) ? valueAt(value, name) : undefined
    value = withValueAt(value, name, previous === undefined ? item : [...(Array.isArray(previous) ? previous : [previous]), item])
    seen.add(name)
  }
  return value
}

let keyCounter = 0
const newKey = () => `k${(keyCounter += 1)}`

function initialState(options: { lastResult?: SubmissionResult<string[]> | null; defaultValue?: unknown }, reset = false): FormState {
  const defaults = (serialize(options.defaultValue ?? {}) ?? {}) as Record<string, unknown>
  const result = reset ? undefined : options.lastResult
  let state: FormState = {
    initial: (result?.initialValue as Record<string, unknown> | null | undefined) ?? defaults,
    value: (result?.initialValue as Record<string, unknown> | null | undefined) ?? defaults,
    // A post that only changed a field (an update intent, e.g. a kind switch without JavaScript)
    // shows no errors: the form has not been submitted yet.
    error: result && !result.intent ? errorsOf(result.error) : {},
    key: reset ? { '': newKey() } : {},
    status: result?.status,
    reports: 0,
  }
  if (result?.intent?.type === 'update') state = applyUpdate(state, result.intent.payload as UpdatePayload)
  return state
}

function errorsOf(error: Record<string, string[] | null> | undefined): Errors {
  return Object.fromEntries(Object.entries(error ?? {}).filter((entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].length > 0))
}

type UpdatePayload = { name?: string; index?: number; value?: unknown }

/** conform's update intent: the field (or group) takes the value and is re-keyed, its errors dropped. */
function applyUpdate(state: FormState, payload: UpdatePayload): FormState {
  const name = payload.index === undefined ? (payload.name ?? '') : `${payload.name ?? ''}[${payload.index}]`
  if (payload.value === undefined) return state
  const key = { ...state.key, [name]: newKey() }
  const error = Object.fromEntries(Object.entries(state.error).filter(([field]) => field !== name && !field.startsWith(`${name}.`) && !field.startsWith(`${name}[`)))
  return { ...state, initial: withValueAt(state.initial, name, payload.value), value: withValueAt(state.value, name, payload.value), key, error }
}

/** The server's answer to the last post, applied to the form as conform does (`report`). */
function report(state: FormState, result: SubmissionResult<string[]>, options: SchemaFormOptions<unknown>): FormState {
  if (result.initialValue === null) return initialState(options, true)
  let next: FormState = {
    ...state,
    reports: state.reports + 1,
    status: result.status,
    value: (result.initialValue as Record<string, unknown> | undefined) ?? state.value,
    error: result.intent ? state.error : errorsOf(result.error),
  }
  if (result.intent?.type === 'update') next = applyUpdate(next, result.intent.payload as UpdatePayload)
  return next
}

/** The update's value into the form's elements, for those React does not re-key or control. */
function writeToForm(formId: string, payload: UpdatePayload) {
  const form = document.getElementById(formId)
  if (!(form instanceof HTMLFormElement) || payload.value === undefined) return
  const name = payload.index === undefined ? (payload.name ?? '') : `${payload.name ?? ''}[${payload.index}]`
  for (const element of form.elements) {
    const input = element as HTMLInputElement
    if (!input.name || input.name === INTENT || !isPrefixOf(name, input.name) || input.type === 'file' || input.type === 'submit') continue
    const value = valueAt(payload.value, input.name.slice(name.length).replace(/^\./, ''))
    if (input.type === 'checkbox' || input.type === 'radio') input.checked = Array.isArray(value) ? value.includes(input.value) : value === input.value
    else if (!(element instanceof HTMLSelectElement && element.multiple)) input.value = typeof value === 'string' ? value : ''
  }
}

function isPrefixOf(prefix: string, name: string) {
  return prefix === '' || name === prefix || name.startsWith(`${prefix}.`) || name.startsWith(`${prefix}[`)
}

/**
 * A console form the one way every screen uses it (decision 016): the server validates every post
 * with the zod schema (`parseWithZod` in the action) and its `reply()` comes back as `lastResult`;
 * this hook turns that answer and the form's native constraints into conform's field metadata, so
 * pages render with conform's `getInputProps`/`getSelectProps`/`getCollectionProps`/`getFormProps`.
 *
 * The browser gets neither zod nor conform's form runtime (about 24 KB gzip together, a quarter of
 * a page's budget). The native constraints (`required`, `minLength`, `pattern`) refuse empty or
 * malformed fields before anything is posted while JavaScript is off or not yet loaded; once the
 * page has hydrated, the form posts without them (`noValidate`, as conform did) and the server's
 * messages show inline, every field's at once. A field's message goes when the field is edited
 * and comes back, if still due, with the next post. Update intents (`form.update`, a kind switch)
 * post to the server without JavaScript and apply in the page with it.
 */
export function useSchemaForm<Input extends Record<string, unknown>>(shape: FormShape<Input>, options: SchemaFormOptions<Input>) {
  const generatedId = useId()
  const formId = options.id ?? generatedId
  const [state, setState] = useState(() => initialState(options))
  const [reported, setReported] = useState(options.lastResult)
  if (options.lastResult !== reported) {
    setReported(options.lastResult)
    if (options.lastResult) setState(report(state, options.lastResult, options))
  }
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])

  useEffect(() => {
    const formOf = (event: Event) => {
      const target = event.target as HTMLInputElement | null
      const form = target?.form
      return form && form.id === formId ? { form, name: target.name } : null
    }
    const onInput = (event: Event) => {
      const found = formOf(event)
      if (!found) return
      setState((current) => {
        const error = { ...current.error }
        for (const name of Object.keys(error)) if (isPrefixOf(name, found.name) && name !== '') delete error[name]
        return { ...current, value: formValue(found.form), error }
      })
    }
    const onReset = (event: Event) => {
      if ((event.target as HTMLFormElement | null)?.id === formId) setState(initialState(options, true))
    }
    document.addEventListener('input', onInput)
    document.addEventListener('reset', onReset)
    return () => {
      document.removeEventListener('input', onInput)
      document.removeEventListener('reset', onReset)
    }
    // options are read when the form is reset; the listeners depend only on the form's id
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [formId])

  // After a refused post, focus goes to the first field with a message (as with conform).
  useEffect(() => {
    if (state.status !== 'error' || state.reports === 0) return
    const form = document.getElementById(formId)
    if (!(form instanceof HTMLFormElement)) return
    for (const element of form.elements) {
      const name = (element as HTMLInputElement).name
      if (name && state.error[name]) {
        ;(element as HTMLElement).focus()
        break
      }
    }
    // Only a new answer moves the focus, not a message going away as its field is edited.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.reports])

  const update = (payload: UpdatePayload) => {
    setState((current) => applyUpdate(current, payload))
    writeToForm(formId, payload)
  }
  const updateButtonProps = (payload: UpdatePayload) => ({
    name: INTENT,
    value: JSON.stringify({ type: 'update', payload: { ...payload, value: serialize(payload.value) } }),
    form: formId,
    formNoValidate: true,
    // Without JavaScript the button posts and the server's reply carries the update.
    onClick: (event: { preventDefault: () => void }) => {
      event.preventDefault()
      update({ ...payload, value: serialize(payload.value) })
    },
  })

  const field = (name: string): Record<string, unknown> => {
    const id = name ? `${formId}-${name}` : formId
    const errors = state.error[name]
    const allErrors = Object.fromEntries(Object.entries(state.error).filter(([errorName]) => isPrefixOf(name, errorName)))
    return {
      ...shape.constraint[name],
      id,
      name,
      formId,
      errorId: `${id}-error`,
      descriptionId: `${id}-description`,
      initialValue: valueAt(state.initial, name),
      value: valueAt(state.value, name),
      errors,
      allErrors,
      valid: Object.keys(allErrors).length === 0,
      dirty: false,
      key: state.key[name],
      getFieldset: () => fieldset(name),
      getFieldList: () => {
        const items = valueAt(state.initial, name) ?? []
        if (!Array.isArray(items)) throw new Error(`${name} is not a list`)
        return items.map((_, index) => field(`${name}[${index}]`))
      },
    }
  }
  const fieldset = (prefix: string) =>
    new Proxy({}, { get: (_, key) => (typeof key === 'string' ? field(prefix ? `${prefix}.${key}` : key) : undefined) })

  const form = {
    ...field(''),
    errors: state.error[''],
    status: state.status,
    noValidate: hydrated,
    onSubmit: undefined,
    update: Object.assign(update, { getButtonProps: updateButtonProps }),
  }
  type Form = FormMetadata<Input, string[]>
  return [form as unknown as Form, fieldset('') as unknown as ReturnType<Form['getFieldset']>] as const
}

export type SchemaForm<Input extends Record<string, unknown>> = FormMetadata<Input, string[]>
export type SchemaFieldName<Input extends Record<string, unknown>> = FieldName<Input>
