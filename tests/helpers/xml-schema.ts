import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const schemas = path.resolve(import.meta.dirname, '..', 'fixtures', 'sitemaps')

/** The published schemas of sitemaps (tests/fixtures/sitemaps/README.md). */
export const SITEMAP_SCHEMA = path.join(schemas, 'sitemap-with-xhtml.xsd')
export const SITEMAP_INDEX_SCHEMA = path.join(schemas, 'siteindex.xsd')

function xmllint(): string {
  try {
    execFileSync('xmllint', ['--version'], { stdio: 'ignore' })
    return 'xmllint'
  } catch {
    throw new Error('xmllint is needed to validate sitemaps: apt-get install -y libxml2-utils (.ci/run installs it)')
  }
}

/** Validates `xml` against an XML schema with `xmllint --schema`; returns its complaints (none when valid). */
export function schemaProblems(xml: string, schemaFile: string): string[] {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rp-xml-')), 'document.xml')
  writeFileSync(file, xml)
  const result = spawnSync(xmllint(), ['--noout', '--nonet', '--schema', schemaFile, file], { encoding: 'utf8' })
  if (result.status === 0) return []
  return result.stderr
    .split('\n')
    .filter((line) => line.trim() && !line.endsWith('fails to validate'))
    .slice(0, 20)
}
