import Foundation

/// What pins does differently inside its container image (scripts/image), which sets
/// `PINS_IMAGE=1`. Outside the image none of this applies: `PUID` in a host's environment
/// never changes who pins runs as.
enum ContainerImage {
    static let environment = ProcessInfo.processInfo.environment

    /// Inside the image (`PINS_IMAGE` set).
    static var isActive: Bool { !(environment["PINS_IMAGE"] ?? "").isEmpty }

    /// A NAS template starts the container as root and names the user in `PUID`/`PGID`
    /// (linuxserver.io's convention, which Synology, QNAP and Unraid templates follow): before
    /// anything is opened, pins becomes that user (default 1000:1000 as the image sets them),
    /// so it never works on the photos or the database as root. `PUID=0` keeps root, on
    /// purpose only. A container started with `--user` is not root: nothing changes.
    /// Returns a message when the change was asked and could not be made (pins then stops:
    /// going on as root would be a surprise).
    static func becomeConfiguredUser() -> String? {
        guard isActive, geteuid() == 0 else { return nil }
        let uidText = environment["PUID"] ?? "1000", gidText = environment["PGID"] ?? "1000"
        guard let uid = UInt32(uidText), let gid = UInt32(gidText) else {
            return "PUID and PGID must be numeric user and group ids, got PUID='\(uidText)' PGID='\(gidText)'"
        }
        if uid == 0 { return nil }
        var groups = [gid_t(gid)]
        guard setgroups(1, &groups) == 0, setgid(gid_t(gid)) == 0, setuid(uid_t(uid)) == 0 else {
            return "cannot become PUID=\(uid) PGID=\(gid): \(String(cString: strerror(errno)))"
        }
        // Dropped for good: a process that could become root again has not dropped anything.
        guard getuid() == uid, geteuid() == uid, getgid() == gid, setuid(0) != 0 else {
            return "cannot drop root for PUID=\(uid) PGID=\(gid)"
        }
        return nil
    }

    /// Appended to the import's "missing or empty folder" message inside the image: the person
    /// forgot to bind the photo folder, and the container manager made an empty /photos.
    static func missingInputHint(root: String) -> String {
        guard isActive else { return "" }
        return "\nIn the container, bind your photo folder to the /photos volume, read-only "
            + "(docker run -v /volume1/photo:/photos:ro ..., or `volumes:` in compose.yaml); it was '\(root)'."
    }
}
