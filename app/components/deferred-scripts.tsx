import { Children, Fragment, isValidElement, type ReactElement, type ReactNode } from 'react'
import { Scripts, type ScriptsProps } from 'react-router'

type ElementProps = {
  rel?: string
  href?: string
  type?: string
  children?: ReactNode
  dangerouslySetInnerHTML?: { __html: string }
}

/**
 * React Router's `<Scripts>`, except that the browser starts fetching the app's JavaScript once the
 * server-rendered page has painted, instead of while it is still fetching the stylesheet.
 *
 * `<Scripts>` puts one `<link rel="modulepreload">` per chunk in the head (high priority, so on a
 * slow connection they share the bandwidth with the stylesheet the first paint waits for) and an
 * inline module script that imports the matched routes and starts hydration. Here the links and that
 * module script are taken out, and a small inline script adds them after the first frame (at once in
 * a hidden tab, which paints nothing). Everything else `<Scripts>` renders (the router's context and
 * its data stream) is kept. The page looks the same; it becomes interactive a frame or so later on a
 * fast connection, and paints its content sooner on a slow one.
 */
export function DeferredScripts(props: ScriptsProps) {
  // Called as a function so its output can be rearranged; it is a plain function component, so its
  // hooks belong to this component and run in the same order on every render.
  const rendered = Scripts(props)
  if (rendered === null) return null
  const preloads: string[] = []
  let boot: string | null = null
  const rearrange = (node: ReactNode): ReactNode => {
    if (!isValidElement(node)) return node
    const element = node as ReactElement<ElementProps>
    const { rel, href, type, children, dangerouslySetInnerHTML } = element.props
    if (element.type === 'link' && rel === 'modulepreload' && href) {
      if (!preloads.includes(href)) preloads.push(href)
      return null
    }
    if (element.type === 'script' && type === 'module') {
      boot = dangerouslySetInnerHTML?.__html ?? ''
      return null
    }
    if (element.type === Fragment) return <Fragment key={element.key}>{Children.map(children, rearrange)}</Fragment>
    return element
  }
  const kept = rearrange(rendered)
  // Not the output this was written for (a React Router upgrade?): leave it as it was.
  if (boot === null) return rendered
  return (
    <>
      {kept}
      <script
        nonce={props.nonce}
        data-module-preloads={JSON.stringify(preloads)}
        suppressHydrationWarning
        // biome-ignore lint/security/noDangerouslySetInnerHtml: our own code and JSON with `<` escaped.
        dangerouslySetInnerHTML={{ __html: deferredBootScript(boot) }}
      />
    </>
  )
}

/**
 * An inline script that, after the first paint, adds the module preloads listed in its
 * `data-module-preloads` and runs `boot` as an inline module script. Inserted elements carry this
 * script's nonce (the page's policy trusts them).
 */
function deferredBootScript(boot: string): string {
  return `(function(){var d=document,c=d.currentScript,n=c.nonce,p=JSON.parse(c.getAttribute('data-module-preloads')||'[]'),b=${safeJson(boot)},s=0;
function go(){if(s)return;s=1;for(var i=0;i<p.length;i++){var l=d.createElement('link');l.rel='modulepreload';l.href=p[i];if(n)l.nonce=n;d.head.appendChild(l)}
var m=d.createElement('script');m.type='module';if(n)m.nonce=n;m.textContent=b;d.body.appendChild(m)}
if(d.visibilityState==='hidden')go();else requestAnimationFrame(function(){setTimeout(go,0)})})()`
}

function safeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}
