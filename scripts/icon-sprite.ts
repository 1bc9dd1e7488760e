/**
 * Writes app/assets/icons.svg: one <symbol> per name in app/components/ui/icon-names.ts, drawn
 * by rendering lucide-react's component for it. `npm run icons` after changing the list; the
 * test tests/app/icons.test.ts fails while the file and the list disagree.
 *
 *   npx tsx scripts/icon-sprite.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as lucide from 'lucide-react'
import { createElement, type ComponentType } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { ICON_NAMES } from '../app/components/ui/icon-names.ts'

export const SPRITE_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'app', 'assets', 'icons.svg')

export function renderSprite(): string {
  const symbols = ICON_NAMES.map((name) => {
    const component = (lucide as unknown as Record<string, ComponentType | undefined>)[name]
    if (!component) throw new Error(`lucide-react has no icon named ${name}`)
    const markup = renderToStaticMarkup(createElement(component))
    const inner = /^<svg[^>]*>([\s\S]*)<\/svg>$/.exec(markup)?.[1]
    if (inner === undefined) throw new Error(`unexpected markup for ${name}: ${markup.slice(0, 80)}`)
    return `<symbol id="${name}" viewBox="0 0 24 24">${inner}</symbol>`
  })
  return `<svg xmlns="http://www.w3.org/2000/svg">\n<!-- Icons from lucide (ISC licence), written by scripts/icon-sprite.ts -->\n${symbols.join('\n')}\n</svg>\n`
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sprite = renderSprite()
  if (process.argv.includes('--check')) {
    if (readFileSync(SPRITE_PATH, 'utf8') !== sprite) {
      console.error(`${SPRITE_PATH} is out of date: run npm run icons`)
      process.exit(1)
    }
  } else {
    writeFileSync(SPRITE_PATH, sprite)
    console.log(`wrote ${ICON_NAMES.length} icons to ${SPRITE_PATH}`)
  }
}
