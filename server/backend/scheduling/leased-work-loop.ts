import type { Logger } from 'pino'
import type { Db, NotificationListener } from '#server/db/client.ts'
import { createOutageGate, type OutageGate } from '#server/db/outage.ts'

/**
 * The claiming shell the playbook runner and the notification dispatcher share (docs/decisions/025
 * and 026): work is claimed in rounds under leases held in PostgreSQL, a NOTIFY on the workers'
 * channels or the poll wakes a round, timers wake one when a delay ends, and leases are renewed
 * while work is in flight. What a round claims, how work runs and how its leases are renewed and
 * released stay with each worker.
 *
 * One round runs at a time per process; a wake during a round asks for another one after it, so a
 * burst of notifications costs one more round, not one per notification.
 */

export type WorkRound = {
  /** Items claimed by this round. */
  claimed: number
  /** The round filled all the room it had: there may be more due right now. */
  full: boolean
}

export type LeasedWorkLoopOptions = {
  db: Db
  log: Logger
  /** Names the worker in outage and failure logs ("the playbook runner"). */
  what: string
  pollMs: number
  leaseMs: number
  /** Channels whose notifications wake a round; onNotify replaces the plain wake. */
  channels: { channel: string; onNotify?: (payload: string) => void }[]
  /** One round: claims what is due and has room, launches it, says how it went. Null: no room. */
  claimRound: () => Promise<WorkRound | null>
  /** Renews the leases of the work in flight (every leaseMs / 3). */
  renewLeases: () => Promise<void>
  /** After the last round on stop: lets the work in flight end (each worker has its own deadline). */
  drain: () => Promise<void>
  /** Gives this process's leases back so others take the work without waiting for them to lapse. */
  releaseLeases: () => Promise<void>
}

export type LeasedWorkLoop = {
  readonly outage: OutageGate
  /** Started and not stopping: new work may be claimed. */
  active(): boolean
  stopping(): boolean
  listening(): boolean
  /** Runs rounds until one finds nothing more (joins the round under way, asking for another). */
  claimNow(): Promise<number>
  wake(): void
  /** Wakes a round at `at` (plus a little, so the row is due when claimed). */
  wakeAt(at: Date): void
  start(): Promise<void>
  stop(): Promise<void>
}

export function createLeasedWorkLoop(options: LeasedWorkLoopOptions): LeasedWorkLoop {
  const { db, log } = options
  const outage = createOutageGate({ logger: log, what: options.what })
  let started = false
  let stopping = false
  let claiming: Promise<number> | null = null
  let claimAgain = false
  let pollTimer: NodeJS.Timeout | null = null
  let renewTimer: NodeJS.Timeout | null = null
  const wakeTimers = new Set<NodeJS.Timeout>()
  const listeners: NotificationListener[] = []
  const listenerStates = new Map<string, boolean>()

  function claimNow(): Promise<number> {
    if (claiming) {
      claimAgain = true
      return claiming
    }
    claiming = (async () => {
      let total = 0
      do {
        claimAgain = false
        if (stopping || !outage.ready()) break
        let round: WorkRound | null
        try {
          round = await options.claimRound()
          outage.succeeded()
        } catch (error) {
          if (!outage.failed(error)) log.warn({ err: error }, `claiming work for ${options.what} failed`)
          break
        }
        if (!round) break
        total += round.claimed
        if (round.full) claimAgain = true
      } while (claimAgain && !stopping)
      return total
    })().finally(() => {
      claiming = null
    })
    return claiming
  }

  function wake(): void {
    if (!started || stopping) return
    void claimNow()
  }

  function wakeAt(at: Date): void {
    if (!started || stopping) return
    const timer = setTimeout(
      () => {
        wakeTimers.delete(timer)
        wake()
      },
      Math.max(0, at.getTime() - Date.now()) + 5,
    )
    timer.unref?.()
    wakeTimers.add(timer)
  }

  async function listen(): Promise<void> {
    if (!db.listen) return
    for (const { channel, onNotify } of options.channels) {
      try {
        const listener = await db.listen(channel, {
          onNotify: onNotify ?? (() => wake()),
          onState: (up) => {
            listenerStates.set(channel, up)
            if (up) wake()
          },
        })
        listenerStates.set(channel, true)
        listeners.push(listener)
      } catch (error) {
        log.warn({ err: error, channel }, `could not LISTEN for ${options.what}; polling only`)
      }
    }
  }

  return {
    outage,
    active: () => started && !stopping,
    stopping: () => stopping,
    listening: () => listeners.length === options.channels.length && [...listenerStates.values()].every(Boolean),
    claimNow,
    wake,
    wakeAt,
    async start() {
      if (started) return
      started = true
      stopping = false
      await listen()
      pollTimer = setInterval(wake, options.pollMs)
      pollTimer.unref?.()
      renewTimer = setInterval(() => void options.renewLeases(), Math.max(100, Math.floor(options.leaseMs / 3)))
      renewTimer.unref?.()
      wake()
    },
    async stop() {
      stopping = true
      if (pollTimer) clearInterval(pollTimer)
      pollTimer = null
      for (const timer of wakeTimers) clearTimeout(timer)
      wakeTimers.clear()
      await Promise.all(listeners.splice(0).map((listener) => listener.close().catch(() => undefined)))
      listenerStates.clear()
      await claiming?.catch(() => undefined)
      // Leases are renewed until the work in flight has ended, so nobody takes it over meanwhile.
      await options.drain()
      if (renewTimer) clearInterval(renewTimer)
      renewTimer = null
      await options.releaseLeases().catch((error: unknown) => log.warn({ err: error }, `releasing the leases of ${options.what} failed`))
      started = false
    },
  }
}
