import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createElement, type ForwardRefExoticComponent } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import createLucideIcon, { type IconProps } from './lucide-icon.ts'

// The build replaces lucide-react's icon factory with ours (ADR 066): every icon must come out
// exactly as lucide's own would, for the props the app passes and a few it might.
const esm = path.join(path.dirname(createRequire(import.meta.url).resolve('lucide-react/package.json')), 'dist/esm')

/** The icons the app imports (by the names lucide's index exports them under), and every 25th other. */
function iconsToCompare(): string[] {
  const fileOf = new Map<string, string>()
  for (const [, names = '', file = ''] of readFileSync(path.join(esm, 'lucide-react.mjs'), 'utf8').matchAll(
    /export \{([^}]*)\} from '\.\/icons\/([^']+)'/g,
  ))
    for (const [, name] of names.matchAll(/default as (\w+)/g)) if (name) fileOf.set(name, file)
  const used = new Set<string>()
  const appDir = path.resolve(import.meta.dirname, '..')
  for (const file of readdirSync(appDir, { recursive: true, encoding: 'utf8' })) {
    if (!/\.tsx?$/.test(file)) continue
    const source = readFileSync(path.join(appDir, file), 'utf8')
    for (const [, names = ''] of source.matchAll(/import \{([^}]*)\} from 'lucide-react'/g))
      for (const name of names.split(',').map((part) => part.trim().split(' ')[0] ?? ''))
        if (fileOf.has(name)) used.add(fileOf.get(name) ?? '')
  }
  const all = readdirSync(path.join(esm, 'icons')).filter((file) => file.endsWith('.mjs'))
  return [...new Set([...used, ...all.filter((_, index) => index % 25 === 0)])]
}
const iconFiles = iconsToCompare()

type Module = { default: ForwardRefExoticComponent<IconProps>; __iconData: Parameters<typeof createLucideIcon>[0] }

const variants: IconProps[] = [
  {},
  { className: 'size-4 shrink-0' },
  { 'aria-hidden': 'true', className: ' size-5  text-violet-300 lucide ' },
  { 'aria-label': 'Pinned', className: 'size-3' },
  { role: 'img' },
  { title: 'Title' } as IconProps,
  { size: 16, color: 'red', strokeWidth: 1.5 },
  { size: 48, absoluteStrokeWidth: true },
  { width: 10, height: 20, color: '' },
  { children: 'label', id: 'x', 'data-testid': 'icon' } as IconProps,
]

describe('lucide-icon: the icon factory the build uses in place of lucide-react’s', () => {
  it('finds the icons the app uses', () => {
    expect(iconFiles.length).toBeGreaterThan(100)
    expect(iconFiles).toContain('house.mjs')
  })

  it('renders every icon as lucide-react does, attribute for attribute', async () => {
    const differences: string[] = []
    for (const file of iconFiles) {
      const module = (await import(pathToFileURL(path.join(esm, 'icons', file)).href)) as Module
      if (!module.__iconData) continue // an old name re-exporting another icon's file
      // As the build passes them: without the shapes' keys (vite.config.ts, smallerIcons).
      const data = module.__iconData as { node: [string, Record<string, string>][] }
      const withoutKeys = { ...data, node: data.node.map(([tag, { key: _key, ...attributes }]) => [tag, attributes]) }
      const ours = createLucideIcon(withoutKeys as Parameters<typeof createLucideIcon>[0])
      for (const props of variants) {
        const expected = renderToStaticMarkup(createElement(module.default, props))
        const actual = renderToStaticMarkup(createElement(ours, props))
        if (actual !== expected) differences.push(`${file} ${JSON.stringify(props)}\n  ${expected}\n  ${actual}`)
      }
    }
    expect(differences.slice(0, 5)).toEqual([])
  })

  it('also builds an icon from a name and its nodes (lucide’s other signature)', () => {
    const Icon = createLucideIcon('MyIcon', [['path', { d: 'M1 1h2', key: 'a' }]])
    expect(renderToStaticMarkup(createElement(Icon, { className: 'size-4' }))).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" class="lucide lucide-my-icon size-4" aria-hidden="true"><path d="M1 1h2"></path></svg>',
    )
  })
})
