import { api } from '#app/lib/http.ts'
import type { ContactBody } from '#contracts/site.ts'

/** `POST /api/public/contact`: mails the message to the operator. */
export function sendContactMessage(body: ContactBody): Promise<{ message: string }> {
  return api('/public/contact', { method: 'POST', body })
}
