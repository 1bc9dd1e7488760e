import { spawn, type ChildProcess } from 'node:child_process'

/**
 * The bundled server as `npm start` runs it (build/lookout/server.js; scripts/ensure-build.mjs
 * builds it when stale) on a bench database, without the engines or the demo estate, so a page
 * bench measures pages. Resolves once /readyz answers.
 */
export async function startBundledServer(options: { port: number; databaseUrl: string; token: string }): Promise<ChildProcess> {
  const base = `http://127.0.0.1:${options.port}`
  const child = spawn(process.execPath, ['build/lookout/server.js'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(options.port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: options.databaseUrl,
      LOOKOUT_BOOTSTRAP_TOKEN: options.token,
      LOOKOUT_ENGINE: 'off',
      LOOKOUT_DEMO_DATA: 'false',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return child
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  child.kill('SIGTERM')
  throw new Error('server did not become ready')
}
