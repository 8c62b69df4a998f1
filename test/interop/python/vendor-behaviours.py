"""python-gitlab on what the sandbox once answered otherwise than the service: dry-run cherry-picks and reverts, their
messages, cancelling an automatic merge, a hook's test event and its token, jobs skipped behind a canceled one, a
project's open issue count, releases in order, an archive of one directory, a conflicted merge request and an avatar."""
import http.server
import io
import json
import queue
import tarfile
import threading

from steps import Steps, connect

step = Steps()
gl = connect("maintainer")
admin = connect("admin")
project = gl.projects.get("acme/web")

# A 1x1 PNG, as an avatar file.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def work_branch(name, title):
    """A branch off main with one commit that adds a file; returns the commit."""
    return project.commits.create({
        "branch": name, "start_branch": "main", "commit_message": title,
        "actions": [{"action": "create", "file_path": f"{name}.txt", "content": f"{title}\n"}],
    })


def head(branch):
    return project.branches.get(branch).commit["id"]


# Cherry-pick and revert: dry_run commits nothing; the messages the service writes.
with step("commits.cherry_pick.dry_run") as s:
    picked = work_branch("vendor/pick", "Vendor: to pick")
    project.branches.create({"branch": "vendor/pick-target", "ref": "main"})
    before = head("vendor/pick-target")
    answer = project.commits.get(picked.id, lazy=True).cherry_pick("vendor/pick-target", dry_run=True)
    s.value = {"answer": answer, "moved": head("vendor/pick-target") != before}
with step("commits.cherry_pick.message") as s:
    project.commits.get(picked.id, lazy=True).cherry_pick("vendor/pick-target")
    made = project.commits.get(head("vendor/pick-target"))
    s.value = {"picked": picked.id, "message": made.message, "parent_ids": made.parent_ids}
with step("commits.revert.dry_run") as s:
    reverted = work_branch("vendor/revert", "Vendor: to revert")
    answer = project.commits.get(reverted.id, lazy=True).revert("vendor/revert", dry_run=True)
    s.value = {"answer": answer, "moved": head("vendor/revert") != reverted.id}
with step("commits.revert.message") as s:
    answer = project.commits.get(reverted.id, lazy=True).revert("vendor/revert")
    s.value = {"reverted": reverted.id, "title": answer["title"], "message": answer["message"]}

# A merge set to happen when the pipeline succeeds, cancelled.
with step("mergerequests.cancel_merge_when_pipeline_succeeds") as s:
    work_branch("vendor/auto-merge", "Vendor: merge when green")
    mr = project.mergerequests.create({"source_branch": "vendor/auto-merge", "target_branch": "main", "title": "Merge when green"})
    mr.merge(merge_when_pipeline_succeeds=True)
    armed = project.mergerequests.get(mr.iid)
    answer = mr.cancel_merge_when_pipeline_succeeds()
    after = project.mergerequests.get(mr.iid)
    s.value = {
        "armed": armed.merge_when_pipeline_succeeds,
        "answer": {"iid": answer.get("iid"), "merge_when_pipeline_succeeds": answer.get("merge_when_pipeline_succeeds")},
        "state": after.state,
        "merge_when_pipeline_succeeds": after.merge_when_pipeline_succeeds,
    }

# A merge request whose changes conflict with its target once the target moved on.
with step("mergerequests.conflict") as s:
    for side in ("ours", "theirs"):
        project.commits.create({
            "branch": f"vendor/{side}", "start_branch": "main", "commit_message": side.capitalize(),
            "actions": [{"action": "create", "file_path": "vendor-conflict.txt", "content": f"{side}\n"}],
        })
    first = project.mergerequests.create({"source_branch": "vendor/ours", "target_branch": "main", "title": "Ours first"})
    second = project.mergerequests.create({"source_branch": "vendor/theirs", "target_branch": "main", "title": "Theirs second"})
    first.merge()
    project.mergerequests.list(iids=[second.iid], get_all=True)
    read = project.mergerequests.get(second.iid)
    s.value = {"merge_status": read.merge_status, "has_conflicts": read.has_conflicts}


# A hook's test event, and its token dropped when its URL changes without a new one.
class Receiver(http.server.BaseHTTPRequestHandler):
    deliveries = queue.Queue()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.end_headers()
        Receiver.deliveries.put({
            "path": self.path, "event": self.headers.get("X-Gitlab-Event"),
            "token": self.headers.get("X-Gitlab-Token"), "object_kind": json.loads(body).get("object_kind"),
        })

    def log_message(self, *args):
        pass


receiver = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{receiver.server_port}"
with step("hooks.test") as s:
    hook = project.hooks.create({"url": f"{base}/first", "push_events": True, "token": "hook-secret"})
    # python-gitlab 3.12's ProjectHook has no test() (later versions add it): its own http_post calls the route.
    answer = gl.http_post(f"/projects/{project.id}/hooks/{hook.id}/test/push_events")
    s.value = {"answer": answer, "delivery": Receiver.deliveries.get(timeout=10)}
with step("hooks.save.url_resets_token") as s:
    hook.url = f"{base}/second"
    hook.save()
    gl.http_post(f"/projects/{project.id}/hooks/{hook.id}/test/push_events")
    s.value = Receiver.deliveries.get(timeout=10)
    hook.delete()
receiver.shutdown()

# Jobs of later stages behind canceled ones are skipped.
with step("jobs.cancel.skips_later") as s:
    pipeline = project.pipelines.create({"ref": "main"})
    before = sorted((j.stage, j.status) for j in pipeline.jobs.list(get_all=True))
    for job in pipeline.jobs.list(get_all=True):
        if job.status in ("pending", "running"):
            project.jobs.get(job.id, lazy=True).cancel()
    pipeline.refresh()
    s.value = {"before": before, "status": pipeline.status, "jobs": sorted((j.stage, j.status) for j in pipeline.jobs.list(get_all=True))}

# The project's open issue count.
with step("projects.open_issues_count") as s:
    s.value = {"count": gl.projects.get("acme/web").open_issues_count, "open": len(project.issues.list(state="opened", get_all=True))}

# Releases oldest first, by creation.
with step("releases.list.order") as s:
    def seeded(releases):
        return [r.tag_name for r in releases if r.tag_name in ("v1.0.0", "v1.1.0")]
    s.value = {
        "default": seeded(project.releases.list(get_all=True)),
        "created_asc": seeded(project.releases.list(order_by="created_at", sort="asc", get_all=True)),
        "released_asc": seeded(project.releases.list(order_by="released_at", sort="asc", get_all=True)),
    }

# An archive of one directory.
with step("repository_archive.path") as s:
    archive = project.repository_archive(format="tar.gz", path="src")
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        s.value = sorted(m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile())

# A user's avatar, uploaded as python-gitlab uploads files (a part named avatar.png, no content type).
with step("users.avatar") as s:
    user = admin.users.list(username="bob", get_all=True)[0]
    user.avatar = PNG
    user.save()
    s.value = {"id": user.id, "avatar_url": admin.users.get(user.id).avatar_url}

step.emit()
