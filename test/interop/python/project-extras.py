"""python-gitlab on the rest of the spec: releases, snippets, packages, integrations, group variables, SSH keys, broadcast messages, audit events, settings, group export and import."""
import io
import json
import os
import time

import gitlab
from steps import Steps, connect, refusal

FACTS = json.loads(os.environ.get("SANDBOX_FACTS", "{}"))

step = Steps()
gl = connect("maintainer")
admin = connect("admin")
project = gl.projects.get("acme/web")
group = gl.groups.get("acme")

# Releases: list, get, create with links and a milestone, save.
with step("releases.list") as s:
    s.value = [r.tag_name for r in project.releases.list(get_all=True)]
with step("releases.get") as s:
    release = project.releases.get("v1.1.0")
    s.value = {"tag_name": release.tag_name, "name": release.name, "links": [l["name"] for l in release.assets["links"]],
               "milestones": [m["title"] for m in release.milestones]}
with step("releases.create") as s:
    made = project.releases.create({
        "tag_name": "v1.2.0-interop", "ref": "main", "name": "Interop 1.2.0", "description": "Made by python-gitlab",
        "assets": {"links": [{"name": "Bundle", "url": "https://downloads.acme.example/web/interop.tgz"}]},
    })
    s.value = {"tag_name": made.tag_name, "name": made.name, "links": [l["name"] for l in made.assets["links"]],
               "tag": project.tags.get("v1.2.0-interop").commit["id"] == project.branches.get("main").commit["id"]}
with step("releases.create.duplicate") as s:
    s.value = refusal(lambda: project.releases.create({"tag_name": "v1.2.0-interop", "description": "again"}))
with step("releases.save") as s:
    made.description = "Made by python-gitlab, then edited"
    made.name = "Interop 1.2.0 final"
    made.save()
    again = project.releases.get("v1.2.0-interop")
    s.value = {"name": again.name, "description": again.description}

# Snippets: create, read its content, save, user agent detail (administrators), delete.
with step("snippets.list") as s:
    s.value = sorted(sn.title for sn in project.snippets.list(get_all=True))
with step("snippets.create") as s:
    snippet = project.snippets.create({"title": "Interop snippet", "file_name": "run.sh", "content": "echo hello\n", "visibility": "internal"})
    s.value = {"title": snippet.title, "file_name": snippet.file_name, "visibility": snippet.visibility,
               "content": project.snippets.get(snippet.id).content().decode()}
with step("snippets.save") as s:
    snippet.content = "echo goodbye\n"
    snippet.title = "Interop snippet, edited"
    snippet.save()
    s.value = {"title": project.snippets.get(snippet.id).title, "content": project.snippets.get(snippet.id, lazy=True).content().decode()}
with step("snippets.user_agent_detail") as s:
    detail = admin.projects.get("acme/web", lazy=True).snippets.get(snippet.id, lazy=True).user_agent_detail()
    s.value = {"user_agent": detail["user_agent"], "maintainer": refusal(lambda: project.snippets.get(snippet.id, lazy=True).user_agent_detail())}
with step("snippets.delete") as s:
    snippet.delete()
    s.value = refusal(lambda: project.snippets.get(snippet.id))

# Packages: a project's and a group's, one package, its files, delete.
with step("packages.list") as s:
    s.value = [{"id": p.id, "name": p.name, "version": p.version} for p in project.packages.list(get_all=True)]
with step("packages.group") as s:
    s.value = sorted(p.name for p in group.packages.list(get_all=True))
with step("packages.get") as s:
    first = project.packages.list(get_all=True)[0]
    package = project.packages.get(first.id)
    s.value = {"id": package.id, "name": package.name, "files": [f.file_name for f in package.package_files.list(get_all=True)]}
with step("packages.delete") as s:
    project.packages.delete(first.id)
    s.value = refusal(lambda: project.packages.get(first.id))

# Integrations (python-gitlab 3.12 calls them under /integrations): set, read, save, list, delete.
with step("integrations.set") as s:
    ci_server = project.integrations.get("ci-server")
    inactive = ci_server.active
    ci_server.token = "interop-ci-token"
    ci_server.ci_server_url = "https://ci.acme.example"
    ci_server.push_events = True
    ci_server.save()
    s.value = {"before": inactive, "active": project.integrations.get("ci-server").active,
               "listed": sorted(i.slug for i in project.integrations.list())}
with step("integrations.delete") as s:
    project.integrations.delete("ci-server")
    s.value = {"active": project.integrations.get("ci-server").active, "listed": sorted(i.slug for i in project.integrations.list())}

# Group CI variables: list, create, get, save, delete.
with step("group.variables") as s:
    group.variables.create({"key": "INTEROP_TOKEN", "value": "s3cret-value-1", "protected": True, "variable_type": "env_var"})
    variable = group.variables.get("INTEROP_TOKEN")
    variable.value = "s3cret-value-2"
    variable.save()
    keys = sorted(v.key for v in group.variables.list(get_all=True))
    after = group.variables.get("INTEROP_TOKEN")
    group.variables.delete("INTEROP_TOKEN")
    s.value = {"keys": keys, "value": after.value, "protected": after.protected,
               "deleted": refusal(lambda: group.variables.get("INTEROP_TOKEN"))}

# SSH keys by id and by fingerprint.
with step("keys") as s:
    by_id = admin.keys.get(FACTS["key_id"])
    by_fingerprint = admin.keys.get(fingerprint=FACTS["key_fingerprint"])
    s.value = {"id": by_id.id, "user": by_id.user["username"], "same": by_fingerprint.id == by_id.id}

# Broadcast messages (administrators): create, get, save, list, delete.
with step("broadcastmessages") as s:
    message = admin.broadcastmessages.create({"message": "Interop maintenance tonight", "broadcast_type": "banner", "starts_at": "2030-01-01T00:00:00Z", "ends_at": "2030-01-02T00:00:00Z"})
    message.message = "Interop maintenance moved"
    message.save()
    got = admin.broadcastmessages.get(message.id)
    listed = [m.id for m in gl.broadcastmessages.list(get_all=True)]
    message.delete()
    s.value = {"message": got.message, "listed": message.id in listed, "deleted": refusal(lambda: admin.broadcastmessages.get(message.id)),
               "maintainer": refusal(lambda: gl.broadcastmessages.create({"message": "Not allowed"}))}

# Audit events: the instance's (administrators) and a group's (its owners).
with step("audit_events") as s:
    events = admin.audit_events.list(get_all=True)
    owned = admin.groups.get("acme", lazy=True)
    group_events = owned.audit_events.list(get_all=True)
    s.value = {"count": len(events), "get": admin.audit_events.get(events[0].id).id == events[0].id,
               "group": {owned.audit_events.get(e.id).entity_id for e in group_events} == {group.id},
               "maintainer": refusal(lambda: gl.audit_events.list()),
               "group_maintainer": refusal(lambda: group.audit_events.list())}

# Application settings (administrators): read, change, save.
with step("settings") as s:
    settings = admin.settings.get()
    before = settings.signup_enabled
    settings.signup_enabled = not before
    settings.save()
    s.value = {"before": before, "after": admin.settings.get().signup_enabled, "maintainer": refusal(gl.settings.get)}

# Group export and import (the group's owner: the administrator here).
with step("group.export_import") as s:
    platform = admin.groups.get("acme/platform")
    export = platform.exports.create()
    # The export is built in the background: the download answers 404 until it is ready.
    for _ in range(100):
        try:
            archive = export.download()
            break
        except gitlab.GitlabGetError as error:
            if error.response_code != 404:
                raise
            time.sleep(0.1)
    result = admin.groups.import_group(io.BytesIO(archive), path="platform-copy", name="Platform copy")
    copy = admin.groups.get("platform-copy")
    s.value = {"export": export.message, "size": len(archive), "import": result["message"], "copy": copy.full_path,
               "subgroups_of_source": [g.full_path for g in platform.subgroups.list()]}

step.emit()
