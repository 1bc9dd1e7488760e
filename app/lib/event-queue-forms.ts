import { z } from 'zod'

/**
 * The event queue status page's two forms (retry and discard the failed events of one name), told
 * apart by a hidden `intent`. Only the action and tests import this (decision 016).
 */
const eventName = z
  .string({ required_error: 'Event name is required' })
  .trim()
  .min(1, 'Event name is required')
  .max(200, 'Event name is too long (200 characters at most)')

export const RetryEventsSchema = z.object({ intent: z.literal('retry'), name: eventName })
export const DiscardEventsSchema = z.object({ intent: z.literal('discard'), name: eventName })
export const EventQueueActionSchema = z.discriminatedUnion('intent', [RetryEventsSchema, DiscardEventsSchema])
