import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs')

export type RunningProcess = { url: string; child: ChildProcess; output: () => string; stop(): Promise<number | null> }

/**
 * Starts a Lookout entry point (server.ts or server/backend-server.ts) as a real child process
 * on an ephemeral port and resolves once it prints the URL it listens on.
 */
export async function startProcess(
  entry: string,
  env: Record<string, string>,
  options: { timeoutMs?: number; urlPattern?: RegExp } = {},
): Promise<RunningProcess> {
  const child = spawn(process.execPath, [TSX, path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const pattern = options.urlPattern ?? /(?:listening at|running at) (http:\/\/127\.0\.0\.1:\d+)/
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${entry} did not start within ${options.timeoutMs ?? 60_000} ms:\n${output}`))
    }, options.timeoutMs ?? 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = pattern.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${entry} exited with ${code} before listening:\n${output}`))
    })
  })
  return {
    url,
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode)
        child.once('exit', (code) => resolve(code))
        child.kill('SIGTERM')
      }),
  }
}
