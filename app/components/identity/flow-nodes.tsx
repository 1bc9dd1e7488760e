import { Form, useNavigation } from '@remix-run/react'
import { CircleAlert, CircleCheck, Info } from '#app/components/ui/icons.tsx'
import { useEffect, useState, type ComponentType, type ReactNode } from 'react'
import { Alert, AlertDescription } from '#app/components/ui/alert.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { cn } from '#app/lib/cn.ts'
import {
  lookupSecrets,
  nodeKey,
  parseWebAuthnTrigger,
  type AnchorAttributes,
  type Flow,
  type ImgAttributes,
  type InputAttributes,
  type ScriptAttributes,
  type TextAttributes,
  type UiNode,
  type UiText,
} from '#app/lib/identity-flow.ts'
import { useNonce } from '#app/lib/nonce-provider.ts'

/**
 * Renders the identity service's nodes through one component map (node_type → component), so
 * a screen only decides which groups go into which form. Everything but WebAuthn works as a
 * plain HTML form.
 */

function messageTone(message: UiText): 'error' | 'success' | 'info' {
  return message.type === 'error' ? 'error' : message.type === 'success' ? 'success' : 'info'
}

/** Flow-level messages (`ui.messages`) and the restart notices: red for errors. */
export function FlowMessages({ messages, testId = 'flow-messages' }: { messages: UiText[]; testId?: string }) {
  if (!messages.length) return null
  return (
    <div data-testid={testId} className="flex flex-col gap-2">
      {messages.map((message, index) => {
        const tone = messageTone(message)
        const Icon = tone === 'error' ? CircleAlert : tone === 'success' ? CircleCheck : Info
        return (
          <Alert
            key={`${message.id}-${index}`}
            variant={tone === 'error' ? 'destructive' : 'default'}
            data-message-id={message.id}
            data-message-type={tone}
          >
            <Icon aria-hidden="true" />
            <AlertDescription>{message.text}</AlertDescription>
          </Alert>
        )
      })}
    </div>
  )
}

function NodeMessages({ node, id }: { node: UiNode; id: string }) {
  if (!node.messages.length) return null
  return (
    <ul id={id} className="flex flex-col gap-1 text-sm">
      {node.messages.map((message, index) => (
        <li
          key={`${message.id}-${index}`}
          data-message-id={message.id}
          className={cn(messageTone(message) === 'error' ? 'text-danger' : 'text-muted-foreground')}
        >
          {message.text}
        </li>
      ))}
    </ul>
  )
}

function labelOf(node: UiNode): string | undefined {
  const attributes = node.attributes as InputAttributes
  return node.meta.label?.text ?? attributes.label?.text
}

function valueOf(attributes: InputAttributes): string | undefined {
  if (attributes.value === undefined || attributes.value === null) return undefined
  return typeof attributes.value === 'string' ? attributes.value : String(attributes.value)
}

type NodeProps = { node: UiNode; formId: string }

function InputNode({ node, formId }: NodeProps) {
  const attributes = node.attributes as InputAttributes
  const id = `${formId}-${attributes.name}`
  const messagesId = `${id}-messages`
  const hasError = node.messages.some((message) => message.type === 'error')
  const label = labelOf(node)

  if (attributes.type === 'hidden') {
    return <input type="hidden" name={attributes.name} defaultValue={valueOf(attributes) ?? ''} />
  }
  if (attributes.type === 'submit') {
    return (
      <div className="flex flex-col gap-1.5">
        <SubmitButton name={attributes.name} value={valueOf(attributes) ?? ''} disabled={attributes.disabled} testId={`node-${attributes.name}-${valueOf(attributes) ?? ''}`}>
          {label ?? 'Submit'}
        </SubmitButton>
        <NodeMessages node={node} id={messagesId} />
      </div>
    )
  }
  if (attributes.type === 'button') return <ButtonNode node={node} />
  if (attributes.type === 'checkbox') {
    return (
      <div className="flex flex-col gap-1.5">
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name={attributes.name} value="true" defaultChecked={attributes.value === true} disabled={attributes.disabled} />
          {label}
        </label>
        <NodeMessages node={node} id={messagesId} />
      </div>
    )
  }
  return (
    <div className="flex flex-col gap-1.5">
      {label ? <Label htmlFor={id}>{label}</Label> : null}
      <Input
        id={id}
        name={attributes.name}
        type={attributes.type}
        // The server never echoes passwords; keeping defaultValue undefined there avoids autofill clashes.
        defaultValue={attributes.type === 'password' ? undefined : valueOf(attributes)}
        required={attributes.required}
        disabled={attributes.disabled}
        autoComplete={attributes.autocomplete ?? (attributes.name === 'totp_code' || attributes.name === 'code' ? 'one-time-code' : undefined)}
        pattern={attributes.pattern}
        maxLength={attributes.maxlength}
        aria-invalid={hasError || undefined}
        aria-describedby={node.messages.length ? messagesId : undefined}
        data-testid={`node-${attributes.name}`}
      />
      <NodeMessages node={node} id={messagesId} />
    </div>
  )
}

function SubmitButton({ name, value, disabled, testId, children }: { name: string; value: string; disabled?: boolean; testId?: string; children: ReactNode }) {
  const navigation = useNavigation()
  const isBusy = navigation.state === 'submitting' && navigation.formData?.get(name) === value
  return (
    <Button type="submit" name={name} value={value} disabled={disabled || isBusy} data-testid={testId} variant={/unlink|remove|disable/.test(name) ? 'outline' : 'default'}>
      {children}
    </Button>
  )
}

declare global {
  interface Window {
    [key: `__ory${string}`]: ((options: unknown) => void) | undefined
  }
}

/** WebAuthn: a browser ceremony, so it needs JavaScript; the script node defines the function. */
function ButtonNode({ node }: { node: UiNode }) {
  const attributes = node.attributes as InputAttributes
  const trigger = parseWebAuthnTrigger(attributes.onclick)
  const label = labelOf(node) ?? 'Continue'
  const [problem, setProblem] = useState<string | null>(null)
  return (
    <div className="flex flex-col gap-1.5">
      <Button
        type="button"
        variant="outline"
        name={attributes.name}
        disabled={attributes.disabled}
        data-testid={`node-${attributes.name}`}
        onClick={() => {
          const fn = trigger ? window[trigger.fn as `__ory${string}`] : undefined
          if (!trigger || typeof fn !== 'function') {
            setProblem('The security key helper has not loaded yet. Please try again in a moment.')
            return
          }
          setProblem(null)
          fn(trigger.options)
        }}
      >
        {label}
      </Button>
      <noscript>
        <p className="text-sm text-muted-foreground">Security keys need JavaScript in this browser.</p>
      </noscript>
      {problem ? <p className="text-sm text-danger">{problem}</p> : null}
      <NodeMessages node={node} id={`${attributes.name}-messages`} />
    </div>
  )
}

function ImgNode({ node }: NodeProps) {
  const attributes = node.attributes as ImgAttributes
  return (
    <figure className="flex flex-col items-center gap-1.5">
      <img
        src={attributes.src}
        width={attributes.width ?? 200}
        height={attributes.height ?? 200}
        alt={labelOf(node) ?? 'QR code'}
        data-testid={`node-${attributes.id}`}
        className="rounded-md border bg-white p-2"
      />
      {labelOf(node) ? <figcaption className="text-xs text-muted-foreground">{labelOf(node)}</figcaption> : null}
    </figure>
  )
}

function TextNode({ node }: NodeProps) {
  const attributes = node.attributes as TextAttributes
  const label = labelOf(node)
  if (attributes.text.id === 1050015) {
    const secrets = lookupSecrets(attributes.text)
    return (
      <div className="flex flex-col gap-1.5" data-testid={`node-${attributes.id}`}>
        {label ? <p className="text-sm">{label}</p> : null}
        <ul className="grid grid-cols-2 gap-1 rounded-md border bg-muted/40 p-2 font-mono text-sm">
          {secrets.map((secret, index) => (
            <li key={`${secret.code}-${index}`} data-used={secret.used || undefined} className={cn(secret.used && 'text-muted-foreground line-through')}>
              {secret.code}
            </li>
          ))}
        </ul>
      </div>
    )
  }
  return (
    <div className="flex flex-col gap-1" data-testid={`node-${attributes.id}`}>
      {label ? <p className="text-sm text-muted-foreground">{label}</p> : null}
      <code className="select-all break-all rounded-md border bg-muted/40 px-2 py-1 text-sm">{attributes.text.text}</code>
    </div>
  )
}

function AnchorNode({ node }: NodeProps) {
  const attributes = node.attributes as AnchorAttributes
  return (
    <a href={attributes.href} className="text-sm underline underline-offset-4">
      {attributes.title.text}
    </a>
  )
}

/**
 * The WebAuthn helper. Server-rendered with the request's CSP nonce; after a client-side
 * render React does not run script tags, so the effect adds it (trusted via 'strict-dynamic').
 */
function ScriptNode({ node }: NodeProps) {
  const attributes = node.attributes as ScriptAttributes
  const nonce = useNonce()
  useEffect(() => {
    if (document.querySelector(`script[data-ory-loaded="${attributes.id}"]`)) return
    const script = document.createElement('script')
    script.src = attributes.src
    script.async = true
    script.dataset.oryLoaded = attributes.id
    if (attributes.crossorigin) script.crossOrigin = attributes.crossorigin
    if (attributes.integrity) script.integrity = attributes.integrity
    document.body.appendChild(script)
  }, [attributes.id, attributes.src, attributes.crossorigin, attributes.integrity])
  return <script src={attributes.src} async nonce={nonce} suppressHydrationWarning data-testid={`node-${attributes.id}`} />
}

export const NODE_COMPONENTS: Record<string, ComponentType<NodeProps>> = {
  input: InputNode,
  img: ImgNode,
  text: TextNode,
  a: AnchorNode,
  script: ScriptNode,
}

export function FlowNode({ node, formId }: NodeProps) {
  const Component = NODE_COMPONENTS[node.attributes.node_type]
  return Component ? <Component node={node} formId={formId} /> : null
}

/**
 * One form of a flow: posts to the page's own action (`?flow=` in the URL), which relays it.
 * Hidden nodes go first so the script and native submits always carry csrf_token.
 */
export function FlowForm({ flow, nodes, action, testId, children }: { flow: Flow; nodes: UiNode[]; action: string; testId: string; children?: ReactNode }) {
  const ordered = [...nodes.filter(isHidden), ...nodes.filter((node) => !isHidden(node))]
  return (
    <Form method="post" action={action} data-testid={testId} className="flex flex-col gap-4" key={`${flow.id}-${csrfValue(flow)}`}>
      {ordered.map((node, index) => (
        <FlowNode key={`${nodeKey(node)}-${index}`} node={node} formId={testId} />
      ))}
      {children}
    </Form>
  )
}

function isHidden(node: UiNode): boolean {
  return node.attributes.node_type === 'input' && node.attributes.type === 'hidden'
}

function csrfValue(flow: Flow): string {
  const node = flow.ui.nodes.find((n) => nodeKey(n) === 'csrf_token')
  const value = node?.attributes.node_type === 'input' ? node.attributes.value : undefined
  return typeof value === 'string' ? value.slice(0, 12) : ''
}

/** Messages that disappear after a while (spec 000 §9: 10 s on the profile screen); JS only. */
export function useFadingMessages(messages: UiText[], afterMs: number): UiText[] {
  const [visible, setVisible] = useState(messages)
  useEffect(() => {
    setVisible(messages)
    if (!messages.length) return
    const timer = setTimeout(() => setVisible([]), afterMs)
    return () => clearTimeout(timer)
  }, [messages, afterMs])
  return visible
}
