// A release as the service sends it: its description also as HTML (a small Markdown subset, all text escaped), its
// milestones, evidence and assets; what comes from the repository (commit, paths, source archives) only for those
// who may read the code.
import { createHash } from 'node:crypto';
import type { Project, Release, Store } from '../../core/store.js';
import { escapeHtml, milestoneView, projectWebUrl, userBasic } from '../../core/views.js';

const SOURCE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

/** A small Markdown subset (headings, bullet lists, paragraphs) with all text escaped. */
function renderMarkdown(markdown: string): string {
  return markdown
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => {
      const heading = /^(#{1,6})\s+(.*)$/.exec(block);
      if (heading && !block.includes('\n'))
        return `<h${heading[1].length}>${escapeHtml(heading[2])}</h${heading[1].length}>`;
      const lines = block.split('\n');
      if (lines.every((line) => /^\s*[-*]\s+/.test(line))) {
        return `<ul>${lines.map((line) => `<li>${escapeHtml(line.replace(/^\s*[-*]\s+/, ''))}</li>`).join('')}</ul>`;
      }
      return `<p>${lines.map(escapeHtml).join('<br>')}</p>`;
    })
    .join('\n');
}

/** A release as the service sends it; showCode (ctx.canReadCode) decides whether the repository's parts show. */
export async function releaseView(store: Store, project: Project, release: Release, showCode: boolean) {
  const webUrl = projectWebUrl(store, project);
  const sha = await project.repo.resolveCommit(`refs/tags/${release.tag_name}`);
  const author = store.findUser(String(release.author_id));
  const code = showCode
    ? {
        commit: sha === null ? null : await project.repo.getCommit(sha),
        commit_path: sha === null ? null : `/${project.full_path}/-/commit/${sha}`,
        tag_path: `/${project.full_path}/-/tags/${release.tag_name}`,
      }
    : {};
  const sources = showCode
    ? SOURCE_FORMATS.map((format) => ({
        format,
        url: `${webUrl}/-/archive/${release.tag_name}/${project.path}-${release.tag_name}.${format}`,
      }))
    : [];
  const evidence = JSON.stringify({
    project_id: project.id,
    tag_name: release.tag_name,
    created_at: release.created_at,
    sha,
  });
  return {
    tag_name: release.tag_name,
    name: release.name,
    description: release.description,
    description_html: renderMarkdown(release.description),
    created_at: release.created_at.toISOString(),
    released_at: release.released_at.toISOString(),
    author: author ? userBasic(store, author) : null,
    ...code,
    milestones: release.milestone_ids
      .map((id) => project.milestones.find((m) => m.id === id))
      .filter((m) => m !== undefined)
      .map((m) => milestoneView(store, project, m)),
    evidence_sha: createHash('sha256').update(evidence).digest('hex'),
    assets: {
      count: sources.length + release.links.length,
      ...(showCode ? { sources } : {}),
      links: release.links.map((link) => ({
        id: link.id,
        name: link.name,
        url: link.url,
        external: !link.url.startsWith(`${store.baseUrl}/`),
      })),
      evidence_file_path: `${webUrl}/-/releases/${encodeURIComponent(release.tag_name)}/evidences/${release.id}.json`,
    },
  };
}
