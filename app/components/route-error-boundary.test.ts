import { describe, expect, it } from 'vitest'
import { routeFailure } from './route-error-boundary.tsx'

// What React Router hands a boundary for a thrown `data(null, { status })` (an ErrorResponse).
const response = (status: number) => ({ status, statusText: '', internal: false, data: null })

describe('routeFailure — what the one error boundary shows', () => {
  it('a 404 is the not-found page', () => {
    expect(routeFailure(response(404), true)).toEqual({ kind: 'not-found' })
  })
  it('a failed load says why: offline, the server busy, or the server failing', () => {
    expect(routeFailure(new TypeError('Failed to fetch'), true)).toEqual({ kind: 'load-failed', code: 'NETWORK_ERROR' })
    expect(routeFailure(new Error('x'), false)).toEqual({ kind: 'load-failed', code: 'NETWORK_ERROR' })
    expect(routeFailure(response(503), true)).toEqual({ kind: 'load-failed', code: 'SERVICE_UNAVAILABLE' })
    expect(routeFailure(response(500), true)).toEqual({ kind: 'load-failed', code: 'INTERNAL_ERROR' })
    expect(routeFailure(new Error('boom'), true)).toEqual({ kind: 'load-failed', code: 'INTERNAL_ERROR' })
  })
})
