"""python-gitlab on the repository: files, tree, compare, commits, branches, protected branches and tags of acme/web."""
import tarfile
import io

import gitlab
from steps import Steps, connect, refusal

step = Steps()
gl = connect("maintainer")
developer = connect("developer")
project = gl.projects.get("acme/web")

# Files: read, create, edit and save, delete; raw and blame.
with step("files.get") as s:
    readme = project.files.get("README.md", ref="main")
    s.value = {"file_path": readme.file_path, "encoding": readme.encoding, "text": readme.decode().decode(), "blob_id": readme.blob_id}
with step("files.raw") as s:
    s.value = project.files.raw("README.md", ref="main").decode()
with step("files.blame") as s:
    s.value = [{"commit": part["commit"]["id"], "lines": part["lines"]} for part in project.files.blame("README.md", ref="main")]
with step("repository_blob") as s:
    blob = project.repository_blob(readme.blob_id)
    s.value = {"sha": blob["sha"], "size": blob["size"], "raw": project.repository_raw_blob(readme.blob_id).decode()}
with step("files.create") as s:
    created = project.files.create({
        "file_path": "docs/interop notes.md", "branch": "main", "content": "first line\n", "commit_message": "Add interop notes",
    })
    s.value = {"file_path": created.file_path, "branch": created.branch}
with step("files.save") as s:
    notes = project.files.get("docs/interop notes.md", ref="main")
    notes.content = "first line\nsecond line\n"
    notes.save(branch="main", commit_message="Extend interop notes")
    s.value = project.files.raw("docs/interop notes.md", ref="main").decode()
with step("files.delete") as s:
    project.files.get("docs/interop notes.md", ref="main").delete(branch="main", commit_message="Remove interop notes")
    s.value = refusal(lambda: project.files.get("docs/interop notes.md", ref="main"))

# Tree, compare, contributors, merge base, archive.
with step("repository_tree") as s:
    s.value = [entry["path"] for entry in project.repository_tree(path="src", ref="main", recursive=True, get_all=True)]
with step("repository_compare") as s:
    compared = project.repository_compare("v1.0.0", "v1.1.0")
    s.value = {"commits": [c["id"] for c in compared["commits"]], "files": sorted(d["new_path"] for d in compared["diffs"])}
with step("repository_contributors") as s:
    s.value = sorted(c["email"] for c in project.repository_contributors(get_all=True))
with step("repository_merge_base") as s:
    s.value = project.repository_merge_base(["main", "feature/dark-mode"])["id"]
with step("repository_archive") as s:
    archive = project.repository_archive(sha="v1.0.0", format="tar.gz")
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        s.value = sorted(name.split("/", 1)[1] for name in tar.getnames() if "/" in name)

# Commits: history, one commit, a commit with actions, its diff and refs, cherry-pick, revert, comments.
with step("commits.list") as s:
    s.value = [c.id for c in project.commits.list(ref_name="main", get_all=True)]
with step("commits.list.page") as s:
    page = project.commits.list(ref_name="main", per_page=2, page=2)
    s.value = [c.id for c in page]
with step("commits.get") as s:
    head = project.commits.get("main")
    s.value = {"id": head.id, "title": head.title, "parent_ids": head.parent_ids}
with step("commits.create") as s:
    commit = project.commits.create({
        "branch": "interop/commits", "start_branch": "main", "commit_message": "Interop: add and change files",
        "actions": [
            {"action": "create", "file_path": "interop/a.txt", "content": "a\n"},
            {"action": "update", "file_path": "README.md", "content": "# acme/web\n\nEdited by python-gitlab.\n"},
        ],
    })
    s.value = {"id": commit.id, "title": commit.title}
with step("commits.diff") as s:
    s.value = sorted((d["new_path"], d["new_file"]) for d in project.commits.get(commit.id, lazy=True).diff(get_all=True))
with step("commits.refs") as s:
    s.value = project.commits.get(commit.id, lazy=True).refs(type="branch", get_all=True)
with step("commits.cherry_pick") as s:
    project.branches.create({"branch": "interop/picked", "ref": "main"})
    project.commits.get(commit.id, lazy=True).cherry_pick(branch="interop/picked")
    s.value = project.files.raw("interop/a.txt", ref="interop/picked").decode()
with step("commits.revert") as s:
    reverted = project.commits.get(commit.id, lazy=True).revert(branch="interop/commits")
    s.value = {"title": reverted["title"], "gone": refusal(lambda: project.files.get("interop/a.txt", ref="interop/commits"))}
with step("commits.revert.again") as s:
    s.value = refusal(lambda: project.commits.get(commit.id, lazy=True).revert(branch="interop/commits"))
with step("commits.comments") as s:
    commented = project.commits.get(commit.id, lazy=True)
    commented.comments.create({"note": "Looks right", "path": "interop/a.txt", "line": 1, "line_type": "new"})
    s.value = [c.note for c in commented.comments.list(get_all=True)]

# Branches: list with search and regex, get, create, delete, delete merged.
with step("branches.list") as s:
    s.value = [b.name for b in project.branches.list(get_all=True)]
with step("branches.list.search") as s:
    s.value = [b.name for b in project.branches.list(search="feature", get_all=True)]
with step("branches.list.regex") as s:
    s.value = [b.name for b in project.branches.list(regex="^(fix|interop)/", get_all=True)]
with step("branches.get") as s:
    branch = project.branches.get("feature/search")
    s.value = {"name": branch.name, "merged": branch.merged, "protected": branch.protected, "commit": branch.commit["id"]}
with step("branches.create") as s:
    topic = project.branches.create({"branch": "interop/topic", "ref": "v1.0.0"})
    s.value = {"name": topic.name, "commit": topic.commit["id"]}
with step("branches.create.invalid") as s:
    s.value = refusal(lambda: project.branches.create({"branch": "interop/bad..name", "ref": "main"}))
with step("branches.delete.developer") as s:
    developer.projects.get("acme/web", lazy=True).branches.delete("interop/topic")
    s.value = refusal(lambda: project.branches.get("interop/topic"))
with step("branches.delete_merged") as s:
    project.branches.create({"branch": "interop/merged", "ref": "v1.0.0"})
    project.delete_merged_branches()
    s.value = [b.name for b in project.branches.list(get_all=True)]

# Protected branches: list, protect with a wildcard and levels, get, push refused, unprotect.
with step("protectedbranches.list") as s:
    s.value = [{"name": p.name, "push": [a["access_level"] for a in p.push_access_levels]} for p in project.protectedbranches.list(get_all=True)]
with step("protectedbranches.create") as s:
    rule = project.protectedbranches.create({
        "name": "interop/*", "push_access_level": gitlab.const.MAINTAINER_ACCESS,
        "merge_access_level": gitlab.const.DEVELOPER_ACCESS, "allow_force_push": False,
    })
    s.value = {
        "name": rule.name,
        "push": [a["access_level"] for a in rule.push_access_levels],
        "merge": [a["access_level"] for a in rule.merge_access_levels],
        "allow_force_push": rule.allow_force_push,
    }
with step("protectedbranches.get") as s:
    s.value = project.protectedbranches.get("interop/*").name
with step("protectedbranches.enforced") as s:
    # A developer may not push to a branch only maintainers may push to, nor delete it.
    as_developer = developer.projects.get("acme/web", lazy=True)
    s.value = {
        "branch_protected": project.branches.get("interop/commits").protected,
        "commit": refusal(lambda: as_developer.files.create({
            "file_path": "interop/dev.txt", "branch": "interop/commits", "content": "x\n", "commit_message": "Developer push",
        })),
        "delete": refusal(lambda: as_developer.branches.delete("interop/commits")),
    }
with step("protectedbranches.create.duplicate") as s:
    s.value = refusal(lambda: project.protectedbranches.create({"name": "interop/*"}))
with step("protectedbranches.delete") as s:
    project.protectedbranches.get("interop/*", lazy=True).delete()
    s.value = {"names": [p.name for p in project.protectedbranches.list(get_all=True)], "branch_protected": project.branches.get("interop/commits").protected}

# Tags: list, get, create (annotated), delete.
with step("tags.list") as s:
    s.value = [t.name for t in project.tags.list(get_all=True)]
with step("tags.list.order") as s:
    s.value = [t.name for t in project.tags.list(order_by="name", sort="asc", get_all=True)]
with step("tags.get") as s:
    tag = project.tags.get("v1.0.0")
    s.value = {"name": tag.name, "target": tag.target, "commit": tag.commit["id"], "message": tag.message}
with step("tags.create") as s:
    made = project.tags.create({"tag_name": "interop-1", "ref": "main", "message": "Tagged by python-gitlab"})
    s.value = {"name": made.name, "message": made.message, "commit": made.commit["id"]}
with step("tags.create.duplicate") as s:
    s.value = refusal(lambda: project.tags.create({"tag_name": "interop-1", "ref": "main"}))
with step("tags.delete") as s:
    project.tags.delete("interop-1")
    s.value = refusal(lambda: project.tags.get("interop-1"))

step.emit()
