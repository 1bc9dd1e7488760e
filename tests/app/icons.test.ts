import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ICON_NAMES } from '#app/components/ui/icon-names.ts'
import { renderSprite, SPRITE_PATH } from '../../scripts/icon-sprite.ts'

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    return statSync(file).isDirectory() ? sourceFiles(file) : /\.tsx?$/.test(name) ? [file] : []
  })
}

describe('icon sprite', () => {
  it('matches the icon list (run npm run icons after changing it)', () => {
    expect(readFileSync(SPRITE_PATH, 'utf8')).toBe(renderSprite())
  })

  it('has one symbol per name, each with a drawing', () => {
    const sprite = readFileSync(SPRITE_PATH, 'utf8')
    const ids = [...sprite.matchAll(/<symbol id="([^"]+)" viewBox="0 0 24 24">(.*?)<\/symbol>/g)]
    expect(ids.map((match) => match[1])).toEqual([...ICON_NAMES])
    for (const match of ids) expect(match[2]).toMatch(/<(path|circle|rect|line|polyline|polygon|ellipse)\b/)
  })

  it('is the only way the console draws icons: no module imports lucide-react', () => {
    const root = path.resolve(import.meta.dirname, '../../app')
    const offenders = sourceFiles(root).filter((file) => readFileSync(file, 'utf8').includes("from 'lucide-react'"))
    expect(offenders).toEqual([])
  })
})
