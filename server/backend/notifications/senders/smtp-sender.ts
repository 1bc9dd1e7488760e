import net from 'node:net'
import nodemailer from 'nodemailer'
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js'
import { abortedError, checkEgress, NotificationSendError } from './sender-http.ts'
import type { Sender } from './sender.ts'

/**
 * `smtp://[user:password@]host[:port]/?fromaddress=&fromname=&toaddresses=a,b&subject=
 * &encryption=None|ExplicitTLS|ImplicitTLS|Auto&auth=None|Plain|CRAMMD5|Unknown|OAuth2
 * &usehtml=yes&skiptlsverify=yes` through nodemailer. `from`/`to` are read as aliases. Auto
 * (the default) is implicit TLS on port 465 and STARTTLS whenever the server offers it
 * elsewhere; `auth=Unknown` lets nodemailer pick from what the server offers; OAuth2 sends the
 * password as the access token (XOAUTH2).
 */

// Connection-level failures worth retrying; an SMTP reply code decides otherwise.
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE'])

type MailError = Error & { code?: string; responseCode?: number }

function authOf(user: string, password: string, mode: string): Pick<SMTPTransport.Options, 'auth' | 'authMethod'> {
  if (mode === 'none' || (!user && !password)) return {}
  if (mode === 'oauth2') return { auth: { type: 'OAuth2', user, accessToken: password } }
  const authMethod = mode === 'plain' ? 'PLAIN' : mode === 'crammd5' ? 'CRAM-MD5' : undefined
  return { auth: { user, pass: password }, authMethod }
}

export const smtpSender: Sender = {
  secrets: (url) => [url.password],
  async send(url, { title, message, attachments = [] }, context) {
    const override = context.options.baseUrls?.smtp ? new URL(context.options.baseUrls.smtp) : undefined
    const host = (override?.hostname ?? url.url.hostname).replace(/^\[|\]$/g, '')
    const port = Number(override?.port || url.url.port) || 25
    const from = url.option('fromaddress') ?? url.option('from')
    const to = url.list('toaddresses').concat(url.list('to'))
    if (!host) throw url.invalid('URLs look like smtp://[user:password@]host[:port]/?fromaddress=a@b&toaddresses=c@d')
    if (!from) throw url.invalid('needs ?fromaddress=<address>')
    if (to.length === 0) throw url.invalid('needs ?toaddresses=<address>[,<address>]')
    const admission = await checkEgress(context, new URL(`smtp://${net.isIPv6(host) ? `[${host}]` : host}:${port}`))
    if (context.signal.aborted) throw abortedError(context)

    const encryption = (url.option('encryption') ?? 'auto').toLowerCase()
    const insecure = url.flag('skiptlsverify') || url.flag('insecure')
    const { auth, authMethod } = authOf(url.user, url.password, (url.option('auth') ?? 'unknown').toLowerCase())
    const transport = nodemailer.createTransport({
      // The address the guard vetted, given as an IP so nodemailer does not resolve the name
      // again (its own DNS could answer differently); the certificate is still checked against
      // the name through tls.servername.
      host: admission?.address ?? host,
      port,
      secure: encryption === 'implicittls' || (encryption === 'auto' && port === 465),
      ignoreTLS: encryption === 'none',
      requireTLS: encryption === 'explicittls',
      auth,
      authMethod,
      name: url.option('clienthost'),
      tls: { servername: net.isIP(host) ? undefined : host, rejectUnauthorized: !insecure },
      connectionTimeout: context.timeoutMs,
      greetingTimeout: context.timeoutMs,
      socketTimeout: context.timeoutMs,
    })
    const subject = title || url.option('subject') || ''
    const fromName = url.option('fromname')
    const html = url.flag('usehtml')
    let abort: () => void = () => undefined
    const aborted = new Promise<never>((_, reject) => {
      abort = () => {
        transport.close()
        reject(abortedError(context))
      }
      context.signal.addEventListener('abort', abort, { once: true })
    })
    try {
      const info = await Promise.race([
        transport.sendMail({
          from: fromName ? { name: fromName, address: from } : from,
          to,
          subject,
          ...(html ? { html: message } : { text: message }),
          attachments: attachments.map(({ filename, content, contentType }) => ({ filename, content, contentType })),
        }),
        aborted,
      ])
      const response = context.secrets.redact(String(info.response ?? ''))
      const status = Number.parseInt(response.slice(0, 3), 10)
      return { status: Number.isNaN(status) ? undefined : status, response }
    } catch (error) {
      if (error instanceof NotificationSendError) throw error
      if (context.signal.aborted) throw abortedError(context, error)
      const mailError = error as MailError
      const code = mailError.responseCode
      const retryable = code !== undefined ? code >= 400 && code < 500 : TRANSIENT_CODES.has(mailError.code ?? '')
      throw new NotificationSendError('smtp', context.secrets.redact(`smtp: ${host}:${port}: ${mailError.message}`), { status: code, retryable, cause: error })
    } finally {
      context.signal.removeEventListener('abort', abort)
      aborted.catch(() => undefined)
      transport.close()
    }
  },
}
