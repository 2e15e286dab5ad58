import { apiFile } from '#app/lib/http.ts'

export const CARD_FORMATS = ['png', 'json', 'charx'] as const
export type CardFormat = (typeof CARD_FORMATS)[number]

/**
 * `GET /api/roles/:id/export.png|json|charx`, through the HTTP client so a private character's owner
 * sends their token, then handed to the browser as a download.
 */
export async function downloadCard(roleId: string, format: CardFormat, fallbackName: string) {
  const { blob, fileName } = await apiFile(`/roles/${encodeURIComponent(roleId)}/export.${format}`)
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = fileName ?? `${fallbackName}.${format}`
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
