import { Copy, Eye, EyeOff, ShieldAlert } from '#app/components/ui/icons.tsx'
import { useEffect, useState } from 'react'
import { Alert, AlertDescription } from '#app/components/ui/alert.tsx'
import { Button } from '#app/components/ui/button.tsx'
import { mcpSetups } from '#app/lib/token-scopes.ts'
import { Toast } from './toast.tsx'

function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => setHydrated(true), [])
  return hydrated
}

/** Copies text; the outcome is reported with the spec's clipboard messages. */
export function useCopy(): { copy: (text: string, success?: string) => Promise<void>; message: { text: string; tone: 'success' | 'error' } | null } {
  const [message, setMessage] = useState<{ text: string; tone: 'success' | 'error' } | null>(null)
  return {
    message,
    async copy(text, success = 'Copied to clipboard') {
      if (!navigator.clipboard) {
        setMessage({ text: 'Clipboard not available', tone: 'error' })
        return
      }
      try {
        await navigator.clipboard.writeText(text)
        setMessage({ text: success, tone: 'success' })
      } catch {
        setMessage({ text: 'Failed to copy to clipboard', tone: 'error' })
      }
    },
  }
}

/**
 * The one time a token is shown (spec 002 §2). Masked until revealed; copy needs JavaScript,
 * so without it the revealed token is plain selectable text.
 */
export function TokenCreated({ name, token, backendUrl }: { name: string; token: string; backendUrl: string }) {
  const hydrated = useHydrated()
  const [revealed, setRevealed] = useState(false)
  const { copy, message } = useCopy()
  const setups = mcpSetups(backendUrl, token)
  return (
    <div className="flex flex-col gap-4" data-testid="token-created">
      <Alert variant="warning">
        <ShieldAlert aria-hidden="true" />
        <AlertDescription>Copy this token now. For your security it will not be shown again.</AlertDescription>
      </Alert>
      <p className="text-sm">
        Token <strong data-testid="token-name">{name}</strong>
      </p>
      {hydrated ? (
        <div className="flex items-center gap-2">
          <code data-testid="token-value" className="min-w-0 flex-1 select-all break-all rounded-md border bg-muted/40 px-2 py-1 text-sm">
            {revealed ? token : '•'.repeat(Math.min(token.length, 32))}
          </code>
          <Button type="button" variant="outline" size="icon" aria-label={revealed ? 'Hide token' : 'Reveal token'} data-testid="token-reveal" onClick={() => setRevealed(!revealed)}>
            {revealed ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
          </Button>
          <Button type="button" variant="outline" size="icon" aria-label="Copy token" data-testid="token-copy" onClick={() => void copy(token, 'Token copied to clipboard')}>
            <Copy aria-hidden="true" />
          </Button>
        </div>
      ) : (
        <details data-testid="token-reveal-details" className="rounded-md border px-2 py-1 text-sm">
          <summary className="cursor-pointer">{'•'.repeat(Math.min(token.length, 32))} (reveal)</summary>
          <code data-testid="token-value" className="mt-1 block select-all break-all">
            {token}
          </code>
        </details>
      )}
      <div className="flex flex-col gap-2 text-sm">
        <p>
          Use it as <code>Authorization: Bearer &lt;token&gt;</code>, or with basic auth as user <code>token</code> and the token as password.
        </p>
        <McpSetup setups={setups} />
      </div>
      <Toast message={message?.text} tone={message?.tone} />
    </div>
  )
}

/** Client setup tabs. `<details name>` makes them exclusive in the browser, with or without JS. */
export function McpSetup({ setups }: { setups: ReturnType<typeof mcpSetups> }) {
  return (
    <div data-testid="mcp-setup" className="flex flex-col gap-1">
      <p className="font-medium">MCP client setup</p>
      {setups.map((setup, index) => (
        <details key={setup.id} name="mcp-client" open={index === 0} data-testid={`mcp-tab-${setup.id}`} className="rounded-md border px-2 py-1">
          <summary className="cursor-pointer text-sm">{setup.label}</summary>
          <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-muted/40 p-2 text-xs">{setup.code}</pre>
        </details>
      ))}
    </div>
  )
}
