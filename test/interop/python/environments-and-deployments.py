"""python-gitlab on environments and deployments of acme/web: list and read both, approve a deployment blocked on the protected production environment, stop a review app."""
import json
import os

from steps import Steps, connect, refusal

# review: the name of a review app's environment the test made for this script to stop.
FACTS = json.loads(os.environ.get("SANDBOX_FACTS", "{}"))

step = Steps()
gl = connect("maintainer")
project = gl.projects.get("acme/web")
developer_project = connect("developer").projects.get("acme/web", lazy=True)


def environment_summary(environment):
    return {"id": environment.id, "name": environment.name, "state": environment.state, "tier": environment.tier,
            "external_url": environment.external_url}


def deployment_summary(deployment):
    return {"id": deployment.id, "iid": deployment.iid, "status": deployment.status, "sha": deployment.sha,
            "ref": deployment.ref, "environment": deployment.environment["name"],
            "user": deployment.user["username"], "job": deployment.deployable["id"]}


# Environments: list (all, by name, by search, by state) and read one with what it runs now.
with step("environments.list") as s:
    s.value = [environment_summary(e) for e in project.environments.list(get_all=True)]
with step("environments.list.filtered") as s:
    s.value = {
        "name": [e.name for e in project.environments.list(name="production", get_all=True)],
        "search": [e.name for e in project.environments.list(search="review/", get_all=True)],
        "stopped": [e.name for e in project.environments.list(states="stopped", get_all=True)],
    }
with step("environments.get") as s:
    production = project.environments.list(name="production", get_all=True)[0]
    environment = project.environments.get(production.id)
    last = environment.last_deployment
    s.value = {**environment_summary(environment),
               "last_deployment": None if last is None else {"id": last["id"], "sha": last["sha"], "status": last["status"]}}
with step("environments.get.unknown") as s:
    s.value = refusal(lambda: project.environments.get(999999))

# Deployments: list (all, by environment and status), read one.
with step("deployments.list") as s:
    s.value = [d.id for d in project.deployments.list(get_all=True)]
with step("deployments.list.filtered") as s:
    s.value = [deployment_summary(d) for d in project.deployments.list(
        environment="staging", status="success", order_by="updated_at", sort="desc", get_all=True)]
with step("deployments.get") as s:
    newest = project.deployments.list(environment="staging", sort="desc", per_page=1, get_all=False)[0]
    deployment = project.deployments.get(newest.id)
    s.value = {**deployment_summary(deployment), "job_name": deployment.deployable["name"],
               "environment_id": deployment.environment["id"]}

# Approval of a deployment to production that waits for one: alice (the maintainer) may approve the one root
# started, not her own (the push of her revert started one too), and a developer none.
with step("deployments.blocked") as s:
    blocked = project.deployments.list(environment="production", status="blocked", sort="desc", get_all=True)
    s.value = [{**deployment_summary(d), "pending_approval_count": d.pending_approval_count} for d in blocked]
    by_root = next(d for d in blocked if d.user["username"] == "root")
    own = next(d for d in blocked if d.user["username"] == "alice")
with step("deployments.approval.developer") as s:
    s.value = refusal(lambda: developer_project.deployments.get(by_root.id, lazy=True).approval(status="approved"))
with step("deployments.approval.own") as s:
    s.value = refusal(lambda: project.deployments.get(own.id, lazy=True).approval(status="approved"))
with step("deployments.approval") as s:
    deployment = project.deployments.get(by_root.id)
    answer = deployment.approval(status="approved", comment="Ship it")
    after = project.deployments.get(by_root.id)
    s.value = {
        "id": deployment.id,
        "answer": {"status": answer["status"], "user": answer["user"]["username"], "comment": answer["comment"]},
        "now": after.status,
        "pending_approval_count": after.pending_approval_count,
        "approvals": [[a["user"]["username"], a["status"]] for a in after.approvals],
    }
with step("deployments.approval.again") as s:
    s.value = refusal(lambda: deployment.approval(status="approved"))

# Stopping: a developer stops a review app, but not the protected production environment.
with step("environments.stop") as s:
    review = developer_project.environments.list(name=FACTS["review"], get_all=True)[0]
    environment = developer_project.environments.get(review.id)
    before = environment.state
    answer = environment.stop()
    s.value = {
        "id": review.id,
        "name": review.name,
        "before": before,
        "answer": answer["state"],
        "now": developer_project.environments.get(review.id).state,
        "stopped": [e.name for e in project.environments.list(states="stopped", get_all=True)],
    }
with step("environments.stop.protected") as s:
    s.value = {
        "error": refusal(lambda: developer_project.environments.get(production.id, lazy=True).stop()),
        "now": project.environments.get(production.id).state,
    }

step.emit()
