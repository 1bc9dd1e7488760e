import nodemailer from 'nodemailer'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'

export type MailMessage = { to: string; subject: string; text: string }

export interface Mailer {
  send(message: MailMessage): Promise<void>
}

/**
 * Sends identity mails (recovery and verification codes, invites). Every mail is recorded in
 * identity.mail_outbox; with SMTP_URL it is also handed to the SMTP server, and without one the
 * outbox row plus a log line is all there is, which lets a local operator finish a recovery.
 */
export function createMailer(options: { db: Db; smtpUrl?: string; from: string; logger: Logger }): Mailer {
  const { db, smtpUrl, from, logger } = options
  const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined

  return {
    async send(message) {
      const { rows } = await db.query<{ id: string }>(
        'INSERT INTO identity.mail_outbox ("to", subject, body) VALUES ($1, $2, $3) RETURNING id',
        [message.to, message.subject, message.text],
      )
      const id = rows[0]?.id
      if (!transport) {
        // The body is logged on purpose: without SMTP it is the only way to read the code.
        logger.info({ mailId: id, to: message.to, subject: message.subject, body: message.text }, 'mail queued in identity.mail_outbox (no SMTP_URL)')
        return
      }
      try {
        await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text })
        await db.query('UPDATE identity.mail_outbox SET sent_at = now() WHERE id = $1', [id])
        logger.info({ mailId: id, to: message.to, subject: message.subject }, 'mail sent')
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        await db.query('UPDATE identity.mail_outbox SET error = $2 WHERE id = $1', [id, reason])
        logger.error({ mailId: id, to: message.to, err: reason }, 'mail delivery failed')
        throw error
      }
    },
  }
}
