"""python-gitlab on projects, groups, users, members and notification settings, with paging through headers and the errors a script catches."""
import gitlab
from steps import URL, Steps, connect, refusal

step = Steps()
gl = connect("maintainer")
admin = connect("admin")

# Signing in and the current user.
with step("auth") as s:
    gl.auth()
    s.value = {"username": gl.user.username, "status": gl.user.status.get().attributes.get("message")}

# Projects: one by path, lazy, paging through offset headers and keyset links.
with step("projects.get") as s:
    web = gl.projects.get("acme/web")
    s.value = {"id": web.id, "path_with_namespace": web.path_with_namespace, "default_branch": web.default_branch,
               "visibility": web.visibility, "namespace": web.namespace["full_path"]}
with step("projects.get.by_id") as s:
    s.value = gl.projects.get(web.id).path_with_namespace
with step("projects.lazy") as s:
    # A lazy object makes no request until a sub-manager is used; its path is URL-encoded as the id.
    payments = gl.projects.get("acme/platform/payments-api", lazy=True)
    s.value = {"encoded_id": payments.encoded_id, "issues": sorted(i.iid for i in payments.issues.list(get_all=True))}
with step("projects.list.iterator") as s:
    pages = gl.projects.list(per_page=2, iterator=True, order_by="id", sort="asc")
    s.value = {"total": pages.total, "total_pages": pages.total_pages, "per_page": pages.per_page,
               "current_page": pages.current_page, "next_page": pages.next_page,
               "paths": [p.path_with_namespace for p in pages]}
with step("projects.list.page") as s:
    s.value = [p.path_with_namespace for p in gl.projects.list(per_page=2, page=2, order_by="id", sort="asc")]
with step("projects.list.get_all") as s:
    s.value = [p.path_with_namespace for p in gl.projects.list(per_page=1, get_all=True, order_by="id", sort="asc")]
with step("projects.list.keyset") as s:
    s.value = [p.path_with_namespace for p in gl.projects.list(pagination="keyset", order_by="id", sort="asc", per_page=2, get_all=True)]
with step("projects.list.filters") as s:
    s.value = {
        "archived": [p.path_with_namespace for p in gl.projects.list(archived=True, get_all=True)],
        "search": [p.path_with_namespace for p in gl.projects.list(search="payments", get_all=True)],
        "outsider": sorted(p.path_with_namespace for p in connect("outsider").projects.list(get_all=True)),
    }
with step("users.projects") as s:
    bob = admin.users.list(username="bob")[0]
    s.value = [p.path_with_namespace for p in admin.users.get(bob.id, lazy=True).projects.list(get_all=True)]

# Errors as a script catches them.
with step("errors.not_found") as s:
    s.value = refusal(lambda: gl.projects.get("acme/no-such-project"))
with step("errors.private_to_outsider") as s:
    s.value = refusal(lambda: connect("outsider").projects.get("acme/platform/payments-api"))
with step("errors.bad_token") as s:
    stranger = gitlab.Gitlab(URL, private_token="not-a-real-token", timeout=10)
    s.value = {"auth": refusal(stranger.auth), "get": refusal(lambda: stranger.projects.get("acme/web"))}
with step("errors.anonymous_write") as s:
    s.value = refusal(lambda: connect("anonymous").projects.get("acme/web", lazy=True).issues.create({"title": "Anonymous"}))
with step("errors.forbidden") as s:
    s.value = refusal(lambda: connect("reporter").projects.get("acme/web", lazy=True).branches.create({"branch": "reporter-branch", "ref": "main"}))
with step("errors.create_validation") as s:
    s.value = refusal(lambda: admin.users.create({"email": "nobody@example.org", "username": "nobody", "name": "No Body"}))

# Groups.
with step("groups.list") as s:
    s.value = [g.full_path for g in gl.groups.list(get_all=True)]
with step("groups.get") as s:
    acme = gl.groups.get("acme")
    s.value = {"id": acme.id, "full_path": acme.full_path, "visibility": acme.visibility}
with step("groups.subgroups") as s:
    s.value = [g.full_path for g in acme.subgroups.list(get_all=True)]
with step("groups.projects") as s:
    s.value = sorted(p.path_with_namespace for p in acme.projects.list(include_subgroups=True, get_all=True))
with step("groups.create") as s:
    created = gl.groups.create({"name": "Interop team", "path": "interop-team", "parent_id": acme.id, "visibility": "private"})
    s.value = {"full_path": created.full_path, "parent_id": created.parent_id, "visibility": created.visibility}
with step("groups.create.duplicate") as s:
    s.value = refusal(lambda: gl.groups.create({"name": "Interop team", "path": "interop-team", "parent_id": acme.id}))

# Users (the administrator's work).
with step("users.list") as s:
    s.value = {"bob": [u.username for u in gl.users.list(username="bob")],
               "search": sorted(u.username for u in gl.users.list(search="chen", get_all=True))}
with step("users.get") as s:
    got = gl.users.get(bob.id)
    s.value = {"id": got.id, "username": got.username, "name": got.name}
with step("users.create") as s:
    frank = admin.users.create({
        "email": "grace@example.org", "username": "grace", "name": "Grace Interop", "password": "a-long-passphrase-1",
        "skip_confirmation": True, "provider": "github", "extern_uid": "grace-gh",
    })
    s.value = {"username": frank.username, "identities": [i["provider"] for i in admin.users.get(frank.id).identities]}
with step("users.save") as s:
    frank.bio = "Writes automation"
    frank.name = "Grace Hopper-Interop"
    frank.save()
    again = admin.users.get(frank.id)
    s.value = {"bio": again.bio, "name": again.name}
with step("users.identityproviders.delete") as s:
    frank.identityproviders.delete("github")
    s.value = admin.users.get(frank.id).identities

# Members of a project and a group: all (inherited), add, save, delete.
with step("projects.members_all") as s:
    s.value = sorted((m.username, m.access_level) for m in web.members_all.list(get_all=True))
with step("projects.members_all.get") as s:
    s.value = web.members_all.get(bob.id).access_level
with step("projects.members.create") as s:
    member = web.members.create({"user_id": frank.id, "access_level": gitlab.const.DEVELOPER_ACCESS})
    s.value = {"username": member.username, "access_level": member.access_level,
               "direct": [m.username for m in web.members.list(get_all=True)]}
with step("projects.members.save") as s:
    member.access_level = gitlab.const.MAINTAINER_ACCESS
    member.expires_at = "2099-01-31"
    member.save()
    got = web.members.get(frank.id)
    s.value = {"access_level": got.access_level, "expires_at": got.expires_at}
with step("projects.members.delete") as s:
    member.delete()
    s.value = refusal(lambda: web.members.get(frank.id))
with step("groups.members") as s:
    added = acme.members.create({"user_id": frank.id, "access_level": gitlab.const.REPORTER_ACCESS})
    added.access_level = gitlab.const.DEVELOPER_ACCESS
    added.save()
    s.value = {"direct": acme.members.get(frank.id).access_level, "all": acme.members_all.get(frank.id).access_level,
               "inherited": web.members_all.get(frank.id).access_level,
               "listed": sorted(m.username for m in acme.members.list(get_all=True))}
    added.delete()
with step("users.delete") as s:
    admin.users.delete(frank.id)
    s.value = refusal(lambda: admin.users.get(frank.id))

# Notification settings: global, group and project; save() after editing.
with step("notificationsettings") as s:
    mine = gl.notificationsettings.get()
    mine.level = "watch"
    mine.save()
    group_settings = acme.notificationsettings.get()
    group_settings.level = "mention"
    group_settings.save()
    project_settings = web.notificationsettings.get()
    project_settings.level = "custom"
    project_settings.failed_pipeline = True
    project_settings.save()
    s.value = {"global": gl.notificationsettings.get().level, "group": acme.notificationsettings.get().level,
               "project": web.notificationsettings.get().level, "failed_pipeline": web.notificationsettings.get().events["failed_pipeline"]}

step.emit()
