import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { BSON } from 'mongodb'

/**
 * A MongoDB peer speaking the real wire protocol (OP_QUERY/OP_REPLY for a legacy handshake,
 * OP_MSG for commands) on loopback, for the mongodb check's success and refusal paths: Debian
 * has no mongod to run here. It answers hello/isMaster as a 7.0 standalone, `ping`, and ends
 * sessions; with `requireAuth` every other command is refused the way mongod refuses it.
 */
export type MongoWirePeer = { port: number; commands: string[]; close: () => Promise<void> }

const OP_REPLY = 1
const OP_QUERY = 2004
const OP_MSG = 2013

function helloReply(): BSON.Document {
  return {
    isWritablePrimary: true, ismaster: true, helloOk: true, maxBsonObjectSize: 16 * 1024 * 1024, maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000, localTime: new Date(), logicalSessionTimeoutMinutes: 30, connectionId: 1,
    minWireVersion: 0, maxWireVersion: 21, readOnly: false, ok: 1,
  }
}

function answer(command: BSON.Document, requireAuth: boolean): BSON.Document {
  const name = Object.keys(command)[0] ?? ''
  if (name === 'hello' || name.toLowerCase() === 'ismaster') return helloReply()
  if (name === 'endSessions') return { ok: 1 }
  if (requireAuth) return { ok: 0, errmsg: `Command ${name} requires authentication`, code: 13, codeName: 'Unauthorized' }
  if (name === 'ping') return { ok: 1 }
  return { ok: 0, errmsg: `no such command: '${name}'`, code: 59, codeName: 'CommandNotFound' }
}

function frame(opCode: number, responseTo: number, body: Buffer): Buffer {
  const header = Buffer.alloc(16)
  header.writeInt32LE(16 + body.length, 0)
  header.writeInt32LE(Math.floor(Math.random() * 2 ** 31), 4)
  header.writeInt32LE(responseTo, 8)
  header.writeInt32LE(opCode, 12)
  return Buffer.concat([header, body])
}

function handle(message: Buffer, requireAuth: boolean, commands: string[]): Buffer | null {
  const requestId = message.readInt32LE(4)
  const opCode = message.readInt32LE(12)
  if (opCode === OP_QUERY) {
    // flags, then the collection name as a C string, skip and limit, then the query document.
    let at = 20
    while (message[at] !== 0) at++
    at += 1 + 8
    const query = BSON.deserialize(message.subarray(at, at + message.readInt32LE(at)))
    commands.push(Object.keys(query)[0] ?? '')
    const document = BSON.serialize(answer(query, requireAuth))
    const body = Buffer.alloc(20)
    body.writeInt32LE(0, 0)
    body.writeBigInt64LE(0n, 4)
    body.writeInt32LE(0, 12)
    body.writeInt32LE(1, 16)
    return frame(OP_REPLY, requestId, Buffer.concat([body, document]))
  }
  if (opCode === OP_MSG) {
    // flag bits, then sections; the body is the kind-0 section.
    let at = 20
    let command: BSON.Document | undefined
    const end = message.readInt32LE(0) - ((message.readUInt32LE(16) & 1) === 1 ? 4 : 0)
    while (at < end) {
      const kind = message[at]
      at += 1
      const size = message.readInt32LE(at)
      if (kind === 0) command = BSON.deserialize(message.subarray(at, at + size))
      at += size
    }
    if (!command) return null
    commands.push(Object.keys(command)[0] ?? '')
    const flags = Buffer.alloc(5)
    return frame(OP_MSG, requestId, Buffer.concat([flags, BSON.serialize(answer(command, requireAuth))]))
  }
  return null
}

export async function startMongoWirePeer(options: { requireAuth?: boolean } = {}): Promise<MongoWirePeer> {
  const commands: string[] = []
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    let pending = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0)
        const reply = handle(pending.subarray(0, length), options.requireAuth ?? false, commands)
        pending = pending.subarray(length)
        if (reply) socket.write(reply)
        else socket.destroy()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    commands,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    }),
  }
}
