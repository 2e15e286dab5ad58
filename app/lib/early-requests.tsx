import { useNonce } from './nonce.tsx'

/**
 * Requests a page starts before its JavaScript has arrived (docs/decisions/068-early-requests.md).
 *
 * A signed-in page such as a chat is rendered by the server without its data (the tokens live in
 * the browser), so its content used to wait for the app's scripts, then for its API calls. The
 * page's HTML now carries a small inline script that reads the access token and starts those calls
 * at once; `api()` (http.ts) takes the answer of the same call instead of sending it again, once,
 * while it is fresh. A call made with another token, after `EARLY_REQUEST_TTL_MS`, or never
 * started (signed out, a page opened by client navigation) goes out as usual.
 */

/** One call as `api()` would send it: method, path under /api, and the JSON body (if any). */
export type EarlyRequest = { method: 'GET' | 'POST'; path: string; body?: unknown }

type Started = { token: string; at: number; responses: Record<string, Promise<Response>> }

declare global {
  interface Window {
    __EARLY_REQUESTS__?: Started
  }
}

/** An answer older than this is not used: the call goes out again (a tab left in the background). */
export const EARLY_REQUEST_TTL_MS = 15_000

/** The key both sides agree on: the same method, path and body text make the same call. */
export function earlyRequestKey(method: string, path: string, body: unknown): string {
  return `${method} ${path} ${body === undefined ? '' : JSON.stringify(body)}`
}

/**
 * The answer of the call `api()` is about to make, when the page started it early with `token`;
 * removed so that it is used once. Undefined: nothing to take, send the call.
 */
export function takeEarlyResponse(method: string, path: string, body: unknown, token: string | null) {
  const started = typeof window === 'undefined' ? undefined : window.__EARLY_REQUESTS__
  if (!started || !token || started.token !== token || Date.now() - started.at > EARLY_REQUEST_TTL_MS) return undefined
  const key = earlyRequestKey(method, path, body)
  const response = started.responses[key]
  delete started.responses[key]
  return response
}

/**
 * The inline script: with an access token in storage, starts each call with the headers `api()`
 * sends (a failure is caught here and the call is made again by `api()`).
 */
export function earlyRequestsScript(requests: readonly EarlyRequest[]): string {
  const list = requests.map((r) => [r.method, r.path, r.body === undefined ? '' : JSON.stringify(r.body)])
  const json = JSON.stringify(list)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
  return `(function(w){try{var t=w.localStorage.getItem('token');if(!t||!w.fetch)return;var l=${json},r={};
for(var i=0;i<l.length;i++){var q=l[i],h={accept:'application/json',authorization:'Bearer '+t};if(q[2])h['content-type']='application/json';
var p=w.fetch(w.location.origin+'/api'+q[1],{method:q[0],headers:h,body:q[2]||undefined});p.catch(function(){});r[q[0]+' '+q[1]+' '+q[2]]=p}
w.__EARLY_REQUESTS__={token:t,at:Date.now(),responses:r}}catch(e){}})(window)`
}

/** The script as an element of the page (the server's render; in the browser it is left as it is). */
export function EarlyRequests({ requests }: { requests: readonly EarlyRequest[] }) {
  const nonce = useNonce()
  return (
    <script
      nonce={nonce || undefined}
      suppressHydrationWarning
      // biome-ignore lint/security/noDangerouslySetInnerHtml: our own code and JSON with `<` escaped.
      dangerouslySetInnerHTML={{ __html: earlyRequestsScript(requests) }}
    />
  )
}
