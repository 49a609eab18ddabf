import Foundation

/// Checks and normalises values before an item is saved. Messages never quote secret values.
public enum Validation {
    /// Whether `digits` passes the Luhn check.
    public static func passesLuhn(_ digits: String) -> Bool {
        let values = digits.compactMap(\.wholeNumberValue)
        guard values.count == digits.count, !values.isEmpty else { return false }
        var sum = 0
        for (offset, digit) in values.reversed().enumerated() {
            if offset % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }

    /// A card number without spaces or dashes, checked for length (12–19 digits) and the Luhn digit.
    public static func normalizedCardNumber(_ text: String) throws -> String {
        let stripped = text.filter { $0 != " " && $0 != "-" }
        guard stripped.allSatisfy(\.isASCII), stripped.allSatisfy(\.isNumber) else {
            throw ValidationError("card.characters")
        }
        guard (12...19).contains(stripped.count) else {
            throw ValidationError("card.length", ["digits": String(stripped.count)])
        }
        guard passesLuhn(stripped) else {
            throw ValidationError("card.checkDigit")
        }
        return stripped
    }

    /// A month and year ("MM/YY", "MM/YYYY", "YYYY-MM", "MMYY") as "YYYY-MM".
    public static func normalizedMonthYear(_ text: String, label: String = "expiry date") throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var month: Int?
        var year: Int?
        let parts = trimmed.split(whereSeparator: { $0 == "/" || $0 == "-" || $0 == "." || $0 == " " }).map(String.init)
        if parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]) {
            if parts[0].count == 4 { (year, month) = (a, b) } else { (month, year) = (a, b) }
        } else if parts.count == 1, trimmed.count == 4, let all = Int(trimmed) {
            (month, year) = (all / 100, all % 100)
        }
        guard var y = year, let m = month, (1...12).contains(m) else {
            throw ValidationError("expiry.format", ["label": label, "value": trimmed])
        }
        if y < 100 { y += 2000 }
        guard (1900...2999).contains(y) else {
            throw ValidationError("expiry.year", ["label": label])
        }
        return String(format: "%04d-%02d", y, m)
    }

    /// A calendar date ("YYYY-MM-DD", or "DD.MM.YYYY") as "YYYY-MM-DD".
    public static func normalizedDate(_ text: String, label: String = "date") throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var parts = trimmed.split(whereSeparator: { $0 == "-" || $0 == "." || $0 == "/" }).compactMap { Int($0) }
        if parts.count == 3, trimmed.contains("."), parts[2] > 31 { parts = [parts[2], parts[1], parts[0]] }
        guard parts.count == 3, (1...9999).contains(parts[0]), (1...12).contains(parts[1]) else {
            throw ValidationError("date.format", ["label": label, "value": trimmed])
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
        guard components.isValidDate(in: calendar) else {
            throw ValidationError("date.impossible", ["label": label, "value": trimmed])
        }
        return String(format: "%04d-%02d-%02d", parts[0], parts[1], parts[2])
    }

    /// A website address with a scheme: one typed without a scheme gets `https://`.
    public static func normalizedURL(_ text: String) throws -> String {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty, !trimmed.contains(where: \.isWhitespace) else {
            throw ValidationError("website", ["value": trimmed])
        }
        let withScheme = trimmed.contains("://") ? trimmed : "https://" + trimmed
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme, !scheme.isEmpty,
            let host = components.host, !host.isEmpty, host.contains(".") || host == "localhost" || scheme != "https" && scheme != "http"
        else {
            throw ValidationError("website", ["value": trimmed])
        }
        return withScheme
    }

    /// An email address: something@domain.tld.
    public static func normalizedEmail(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !trimmed.contains(where: \.isWhitespace)
        else {
            throw ValidationError("email", ["value": trimmed])
        }
        return trimmed
    }

    /// The host of an address with a scheme, read without URLComponents (a list check reads thousands):
    /// what follows "://" up to a path, query, fragment or port, without user info. Lower-cased.
    public static func hostQuickly(_ address: String) -> String? {
        let bytes = Array(address.utf8)
        var start = 0
        while start + 2 < bytes.count && !(bytes[start] == 58 && bytes[start + 1] == 47 && bytes[start + 2] == 47) { start += 1 }
        guard start + 2 < bytes.count else { return nil }
        start += 3
        var end = start
        var hostStart = start
        while end < bytes.count, bytes[end] != 47, bytes[end] != 63, bytes[end] != 35 {
            if bytes[end] == 64 { hostStart = end + 1 }  // user info ends at "@"
            end += 1
        }
        guard hostStart < end, bytes[hostStart] != 91 else { return nil }  // no IPv6 literals
        var hostEnd = hostStart
        while hostEnd < end, bytes[hostEnd] != 58 { hostEnd += 1 }
        guard hostStart < hostEnd else { return nil }
        return String(decoding: bytes[hostStart..<hostEnd].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The host of a website address, without a leading "www.".
    public static func host(of website: String) -> String? {
        guard let host = URLComponents(string: website)?.host, !host.isEmpty else { return nil }
        return host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
    }
}

extension Item {
    /// The item with every value checked and normalised, and an empty title derived from its website or first
    /// visible field. Throws the first problem found, with what to do.
    public func validated() throws -> Item {
        var item = self
        item.websites = try websites.filter { !$0.trimmingWhitespace(newlines: false).isEmpty }.map(Validation.normalizedURL)
        for index in item.fields.indices where !item.fields[index].value.isEmpty {
            let field = item.fields[index]
            let label = field.label.lowercased()
            switch field.kind {
            case .url: item.fields[index].value = try Validation.normalizedURL(field.value)
            case .email: item.fields[index].value = try Validation.normalizedEmail(field.value)
            case .date: item.fields[index].value = try Validation.normalizedDate(field.value, label: label)
            case .monthYear: item.fields[index].value = try Validation.normalizedMonthYear(field.value, label: label)
            default: break
            }
            if category == .creditCard, field.key == "number" {
                item.fields[index].value = try Validation.normalizedCardNumber(field.value)
            }
        }
        item.tags = Array(NSOrderedSet(array: tags.map { $0.trimmingWhitespace(newlines: false) }.filter { !$0.isEmpty })) as? [String] ?? tags
        item.title = title.trimmingWhitespace()
        if item.title.isEmpty { item.title = item.derivedTitle }
        return item
    }

    /// A title for an item saved without one: the website's host, else the first visible field, else the category.
    var derivedTitle: String {
        if let site = websites.first, let host = Validation.host(of: site) { return host }
        if let first = fields.first(where: { !$0.kind.isConcealed && !$0.value.isEmpty }) {
            return String(first.value.prefix(60))
        }
        if let line = notes.split(separator: "\n").first { return String(line.prefix(60)) }
        return "Untitled \(category.displayName)"
    }
}
