extension Tables {
    /// `passbox server`.
    static let serverEnglish: [String: String] = [
        "server.listening": "passbox server: listening at {origin} (data in {data}); stop with Ctrl-C",
        "server.stopped": "passbox server: stopped",
        "server.badListen": "--listen {value} is not ADDRESS:PORT",
        "server.badListen.hint": "for example --listen 127.0.0.1:8787 or --listen [::1]:8787",
        "server.plainNotLoopback": "plain HTTP is served only on this machine, and {address} is not a loopback address",
        "server.plainNotLoopback.hint": "give --tls-cert FILE and --tls-key FILE (PEM) to serve HTTPS, or listen on 127.0.0.1",
        "server.tlsPair": "--tls-cert and --tls-key go together",
        "server.tlsPair.hint": "give both PEM files, or neither to serve plain HTTP on this machine",
        "server.badPEM": "{path} is not a readable PEM file",
        "server.badPEM.hint": "give the certificate chain and the private key as PEM files (-----BEGIN …)",
        "server.cannotStart": "the server could not start: {reason}",
        "server.cannotStart.hint": "choose another port with --listen, or check the data directory and the certificate",
    ]

    static let serverGerman: [String: String] = [
        "server.listening": "passbox server: erreichbar unter {origin} (Daten in {data}); beenden mit Strg-C",
        "server.stopped": "passbox server: beendet",
        "server.badListen": "--listen {value} hat nicht die Form ADRESSE:PORT",
        "server.badListen.hint": "zum Beispiel --listen 127.0.0.1:8787 oder --listen [::1]:8787",
        "server.plainNotLoopback": "unverschlüsseltes HTTP gibt es nur auf diesem Rechner, und {address} ist keine Loopback-Adresse",
        "server.plainNotLoopback.hint": "geben Sie --tls-cert DATEI und --tls-key DATEI (PEM) für HTTPS an, oder lauschen Sie auf 127.0.0.1",
        "server.tlsPair": "--tls-cert und --tls-key gehören zusammen",
        "server.tlsPair.hint": "geben Sie beide PEM-Dateien an, oder keine für unverschlüsseltes HTTP auf diesem Rechner",
        "server.badPEM": "{path} ist keine lesbare PEM-Datei",
        "server.badPEM.hint": "geben Sie die Zertifikatskette und den privaten Schlüssel als PEM-Dateien an (-----BEGIN …)",
        "server.cannotStart": "der Server konnte nicht starten: {reason}",
        "server.cannotStart.hint": "wählen Sie mit --listen einen anderen Port, oder prüfen Sie das Datenverzeichnis und das Zertifikat",
    ]
}
