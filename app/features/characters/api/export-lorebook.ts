import { apiFile } from '#app/lib/http.ts'
import type { LorebookExportFormat } from '#contracts/lorebooks.ts'

/**
 * `GET /api/lorebooks/:id/export.json?format=v3|world_info`, through the HTTP client (the user's
 * token goes with it), then handed to the browser as a download under the book's own name.
 */
export async function downloadLorebook(id: string, format: LorebookExportFormat, name: string) {
  const { blob } = await apiFile(`/lorebooks/${encodeURIComponent(id)}/export.json`, { query: { format } })
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  // The header's ASCII fallback would turn a name in another script into underscores.
  link.download = format === 'v3' ? `${name}.lorebook.json` : `${name}.json`
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
