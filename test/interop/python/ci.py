"""python-gitlab on CI: pipelines of acme/web (list, get, variables, create, retry, cancel, delete) and jobs (list, log, retry, cancel, play, erase)."""
import gitlab
from steps import Steps, connect, refusal

step = Steps()
gl = connect("maintainer")
developer = connect("developer")
project = gl.projects.get("acme/web")


def job_summary(job):
    return {"id": job.id, "name": job.name, "stage": job.stage, "status": job.status, "pipeline": job.pipeline["id"]}


# Pipelines.
with step("pipelines.list") as s:
    s.value = [{"id": p.id, "status": p.status, "ref": p.ref} for p in project.pipelines.list(get_all=True)]
with step("pipelines.list.filtered") as s:
    s.value = [p.id for p in project.pipelines.list(status="failed", ref="main", order_by="id", sort="asc", get_all=True)]
with step("pipelines.list.iterator") as s:
    pages = project.pipelines.list(per_page=4, iterator=True)
    s.value = {"total": pages.total, "total_pages": pages.total_pages, "per_page": pages.per_page, "ids": [p.id for p in pages]}
with step("pipelines.get") as s:
    newest_failed = project.pipelines.list(status="failed", per_page=1, get_all=False)[0]
    pipeline = project.pipelines.get(newest_failed.id)
    s.value = {"id": pipeline.id, "status": pipeline.status, "ref": pipeline.ref, "sha": pipeline.sha}
with step("pipelines.variables") as s:
    # The seeded pending pipeline (the oldest): pushes made by the other scripts add pending ones of their own.
    pending = project.pipelines.list(status="pending", sort="asc", get_all=True)[0]
    s.value = {"id": pending.id, "variables": sorted((v.key, v.variable_type) for v in pending.variables.list())}
with step("pipelines.create") as s:
    created = project.pipelines.create({"ref": "main", "variables": [{"key": "INTEROP", "value": "yes", "variable_type": "env_var"}]})
    s.value = {
        "id": created.id, "ref": created.ref, "status": created.status,
        "variables": [{"key": v.key, "value": v.value} for v in created.variables.list()],
        "jobs": [job_summary(j) for j in created.jobs.list(get_all=True)],
    }
with step("pipelines.create.bad_ref") as s:
    s.value = refusal(lambda: project.pipelines.create({"ref": "no-such-branch"}))
with step("pipelines.cancel") as s:
    created.cancel()
    created.refresh()
    s.value = {"status": created.status, "jobs": sorted({j.status for j in created.jobs.list(get_all=True)})}
with step("pipelines.retry") as s:
    created.retry()
    created.refresh()
    s.value = {"status": created.status}
with step("pipelines.delete") as s:
    created.delete()
    s.value = refusal(lambda: project.pipelines.get(created.id))

# Jobs of one pipeline and of the project.
with step("pipeline.jobs.list") as s:
    s.value = [job_summary(j) for j in project.pipelines.get(newest_failed.id, lazy=True).jobs.list(get_all=True)]
with step("pipeline.jobs.list.scope") as s:
    s.value = [j.name for j in project.pipelines.get(newest_failed.id, lazy=True).jobs.list(scope=["failed"], get_all=True)]
with step("jobs.list") as s:
    s.value = [job_summary(j) for j in project.jobs.list(get_all=True)]
with step("jobs.list.scope") as s:
    s.value = [job_summary(j) for j in project.jobs.list(scope=["failed", "manual"], get_all=True)]
with step("jobs.get") as s:
    failed = project.jobs.list(scope="failed", per_page=1, get_all=False)[0]
    job = project.jobs.get(failed.id)
    s.value = {**job_summary(job), "failure_reason": job.failure_reason, "web_url": job.web_url}
with step("jobs.trace") as s:
    s.value = project.jobs.get(failed.id, lazy=True).trace().decode()

# Job actions, each on a job found by its state as a script would find it.
with step("jobs.retry") as s:
    retried = project.jobs.get(failed.id, lazy=True).retry()
    s.value = {"old": failed.id, "new": retried["id"], "name": retried["name"], "status": retried["status"],
               "old_again": refusal(lambda: project.jobs.get(failed.id, lazy=True).retry())}
with step("jobs.cancel") as s:
    running = project.jobs.list(scope="running", get_all=True)[0]
    canceled = project.jobs.get(running.id, lazy=True).cancel()
    s.value = {"id": running.id, "name": running.name, "status": canceled["status"], "now": project.jobs.get(running.id).status}
with step("jobs.cancel.finished") as s:
    # The service answers a job that has ended with the job as it is.
    again = project.jobs.get(running.id, lazy=True).cancel()
    s.value = {"status": again["status"], "finished_at": again["finished_at"], "before": project.jobs.get(running.id).finished_at}
with step("jobs.play") as s:
    manual = project.jobs.list(scope="manual", get_all=True)[0]
    project.jobs.get(manual.id, lazy=True).play()
    s.value = {"id": manual.id, "name": manual.name, "now": project.jobs.get(manual.id).status}
with step("jobs.play.variables") as s:
    # python-gitlab 3.12's play() sends no body; a script passes the documented job variables with http_post.
    second = project.jobs.list(scope="manual", get_all=True)[0]
    played = gl.http_post(f"/projects/{project.id}/jobs/{second.id}/play",
                          post_data={"job_variables_attributes": [{"key": "TARGET", "value": "canary"}]})
    s.value = {"id": second.id, "status": played["status"]}
with step("jobs.play.unplayable") as s:
    s.value = refusal(lambda: project.jobs.get(failed.id, lazy=True).play())
with step("jobs.erase") as s:
    finished = project.jobs.list(scope="success", get_all=True)[0]
    project.jobs.get(finished.id, lazy=True).erase()
    after = project.jobs.get(finished.id)
    s.value = {"id": finished.id, "erased_at": after.erased_at, "trace": project.jobs.get(finished.id, lazy=True).trace().decode()}
with step("jobs.erase.unfinished") as s:
    unfinished = project.jobs.list(scope=["pending", "running"], get_all=True)[0]
    s.value = {"status": unfinished.status, "error": refusal(lambda: project.jobs.get(unfinished.id, lazy=True).erase())}


# Roles: a reporter reads jobs and logs but may not act on them.
with step("jobs.reporter") as s:
    reporter_project = connect("reporter").projects.get("acme/web", lazy=True)
    s.value = {
        "read": reporter_project.jobs.get(failed.id).name,
        "retry": refusal(lambda: reporter_project.jobs.get(failed.id, lazy=True).retry()),
    }

step.emit()
