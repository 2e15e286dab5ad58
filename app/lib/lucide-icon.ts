import { createElement, forwardRef, type ReactNode, type SVGProps } from 'react'

// What lucide-react's icons are built with, in place of its own `createLucideIcon` (the build swaps
// it in, see ADR 066 and vite.config.ts). lucide's version goes through a context, a generic
// attribute builder and a renaming table: about 2 kB gzip in every page's first load for the same
// markup as this. The output is the same element for element and attribute for attribute
// (lucide-icon.test.ts renders the icons both ways); the icon context (LucideProvider) and
// `nonScalingStroke` are not supported, and the app uses neither. The build also drops the
// React keys of each icon's shapes (random strings gzip cannot shrink): they are passed as
// arguments here, which needs none.

type IconNode = [tag: string, attributes: Record<string, string>][]
type IconData = { name?: string; size?: number; node: IconNode; aliases?: string[] }

export type IconProps = SVGProps<SVGSVGElement> & {
  size?: number | string
  absoluteStrokeWidth?: boolean
  children?: ReactNode
}

const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()

/** Whether the icon is labelled (then it is not hidden from assistive technology). */
function labelled(props: Record<string, unknown>): boolean {
  for (const key in props)
    if ((key.startsWith('aria-') || key === 'role' || key === 'title') && props[key] != null) return true
  return false
}

export default function createLucideIcon(dataOrName: IconData | string, node: IconNode = [], aliases: string[] = []) {
  const data: IconData =
    typeof dataOrName === 'string' ? { name: kebab(dataOrName), size: 24, node, aliases } : dataOrName
  const viewBox = data.size ?? 24
  const own = [
    'lucide',
    ...(data.name ? [`lucide-${data.name}`] : []),
    ...(data.aliases ?? []).filter((alias) => alias.trim() !== '').map((alias) => `lucide-${alias}`),
  ]
  // An icon's shapes never change: made once and shared by every drawing of it (React elements are
  // immutable descriptions, so one may appear in many places), as are its classes per `className`.
  const shapes = data.node.map(([tag, attributes]) => createElement(tag, attributes))
  const classesFor = new Map<string, string>()
  return forwardRef<SVGSVGElement, IconProps>(function LucideIcon(
    { color, size, width, height, strokeWidth, absoluteStrokeWidth, className = '', children, ...rest },
    ref,
  ) {
    const drawnWidth = width ?? size ?? 24
    const stroke = strokeWidth ?? 2
    let classes = classesFor.get(className)
    if (classes === undefined) {
      classes = [...new Set([...own, ...className.split(/\s+/).filter(Boolean)])].join(' ')
      // The app names a handful of class lists per icon; a bound keeps a caller that builds them
      // from data from growing this.
      if (classesFor.size < 64) classesFor.set(className, classes)
    }
    return createElement(
      'svg',
      {
        ref,
        xmlns: 'http://www.w3.org/2000/svg',
        width: drawnWidth,
        height: height ?? size ?? 24,
        viewBox: `0 0 ${viewBox} ${viewBox}`,
        fill: 'none',
        stroke: color || 'currentColor',
        strokeWidth: absoluteStrokeWidth ? (Number(stroke) * viewBox) / Number(drawnWidth) : stroke,
        strokeLinecap: 'round',
        strokeLinejoin: 'round',
        className: classes,
        ...(children || labelled(rest) ? {} : { 'aria-hidden': 'true' }),
        ...rest,
      },
      // As arguments, not an array: the shapes need no keys, which the build strips from the icons.
      ...shapes,
      ...(Array.isArray(children) ? children : [children]),
    )
  })
}
