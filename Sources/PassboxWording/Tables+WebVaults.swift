// The web UI's vaults (VLT-1, VLT-2): making one, editing its name, icon and colour; and the editor's https fix.
extension Tables {
    static let webVaultsEnglish: [String: String] = [
        "ui.edit.http.one": "This address is not encrypted (http).",
        "ui.edit.http.other": "{count} addresses are not encrypted (http).",
        "ui.edit.useHttps": "Use https",
        "ui.vault.new": "New vault",
        "ui.vault.create": "Create",
        "ui.vault.created": "The vault {name} is made.",
        "ui.vault.edit": "Edit the vault {name}",
        "ui.vault.editButton": "Edit the vault",
        "ui.vault.name": "Name",
        "ui.vault.icon": "Icon",
        "ui.vault.colour": "Colour",
        "ui.vault.icon.house": "House", "ui.vault.icon.briefcase": "Briefcase", "ui.vault.icon.star": "Star", "ui.vault.icon.heart": "Heart",
        "ui.vault.icon.lock": "Lock", "ui.vault.icon.key": "Key", "ui.vault.icon.globe": "Globe", "ui.vault.icon.folder": "Folder",
        "ui.vault.icon.card": "Card", "ui.vault.icon.person": "Person", "ui.vault.icon.people": "People", "ui.vault.icon.cloud": "Cloud",
        "ui.vault.icon.code": "Code", "ui.vault.icon.gift": "Gift",
        "ui.vault.colour.blue": "Blue", "ui.vault.colour.green": "Green", "ui.vault.colour.orange": "Orange", "ui.vault.colour.red": "Red",
        "ui.vault.colour.purple": "Purple", "ui.vault.colour.pink": "Pink", "ui.vault.colour.teal": "Teal", "ui.vault.colour.yellow": "Yellow",
        "ui.vault.colour.brown": "Brown", "ui.vault.colour.grey": "Grey",
    ]

    static let webVaultsGerman: [String: String] = [
        "ui.edit.http.one": "Diese Adresse ist unverschlüsselt (http).",
        "ui.edit.http.other": "{count} Adressen sind unverschlüsselt (http).",
        "ui.edit.useHttps": "https verwenden",
        "ui.vault.new": "Neuer Tresor",
        "ui.vault.create": "Anlegen",
        "ui.vault.created": "Der Tresor {name} ist angelegt.",
        "ui.vault.edit": "Tresor {name} bearbeiten",
        "ui.vault.editButton": "Tresor bearbeiten",
        "ui.vault.name": "Name",
        "ui.vault.icon": "Symbol",
        "ui.vault.colour": "Farbe",
        "ui.vault.icon.house": "Haus", "ui.vault.icon.briefcase": "Aktentasche", "ui.vault.icon.star": "Stern", "ui.vault.icon.heart": "Herz",
        "ui.vault.icon.lock": "Schloss", "ui.vault.icon.key": "Schlüssel", "ui.vault.icon.globe": "Globus", "ui.vault.icon.folder": "Ordner",
        "ui.vault.icon.card": "Karte", "ui.vault.icon.person": "Person", "ui.vault.icon.people": "Personen", "ui.vault.icon.cloud": "Wolke",
        "ui.vault.icon.code": "Code", "ui.vault.icon.gift": "Geschenk",
        "ui.vault.colour.blue": "Blau", "ui.vault.colour.green": "Grün", "ui.vault.colour.orange": "Orange", "ui.vault.colour.red": "Rot",
        "ui.vault.colour.purple": "Lila", "ui.vault.colour.pink": "Rosa", "ui.vault.colour.teal": "Petrol", "ui.vault.colour.yellow": "Gelb",
        "ui.vault.colour.brown": "Braun", "ui.vault.colour.grey": "Grau",
    ]
}
