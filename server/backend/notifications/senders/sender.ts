import type { NotificationMessage, SendContext } from './sender-http.ts'
import type { ShoutrrrUrl } from './shoutrrr-url.ts'

/** One service: the secrets its URL carries (masked everywhere) and the delivery itself. */
export type Sender = {
  /** Rewrites a raw URL the WHATWG parser would refuse into one it reads (slack's `hook:A/B/C`). */
  prepare?: (raw: string) => string
  secrets: (url: ShoutrrrUrl) => (string | undefined)[]
  send: (url: ShoutrrrUrl, message: NotificationMessage, context: SendContext) => Promise<{ status?: number; response?: string }>
}
